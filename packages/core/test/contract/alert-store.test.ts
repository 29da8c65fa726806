import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AlertRow,
  CrawlerError,
  PgRecordDatabase,
  type RecordDatabase,
  SqliteRecordDatabase,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgTestDatabase, type PgTestDatabase, skipPg } from './record-store.contract.js';

function alert(catalogId: string, name: string, extra: Partial<AlertRow> = {}): AlertRow {
  return {
    id: `al-${catalogId}-${name}`,
    catalogId,
    name,
    query: `${name} words`,
    mode: 'words',
    createdAt: '2026-12-06T01:00:00.000Z',
    lastFiredAt: null,
    lastMatches: null,
    ...extra,
  };
}

/** The saved searches (gf_alert, migration 0009_alerts), the same on SQLite and PostgreSQL. */
function describeAlertStore(name: string, open: () => Promise<RecordDatabase>): void {
  describe(`${name} AlertStore`, () => {
    it('creates, lists by name per catalog, records a firing, deletes one and a catalog', async () => {
      const db = await open();
      const store = db.alerts;
      if (!store) throw new Error('no alert store');
      await store.create(alert('c1', 'zeta'));
      await store.create(alert('c1', 'alpha', { mode: 'hybrid' }));
      await store.create(alert('c2', 'alpha'));
      const err = await store.create(alert('c1', 'alpha', { id: 'al-other' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CrawlerError);
      expect((err as CrawlerError).code).toBe('CONFLICT');
      expect((await store.list('c1')).map((a) => [a.name, a.mode])).toEqual([
        ['alpha', 'hybrid'],
        ['zeta', 'words'],
      ]);
      const matches = [{ url: 'https://example.com/a', title: 'A' }];
      await store.fired('al-c1-zeta', '2026-12-06T02:00:00Z', matches);
      const zeta = (await store.list('c1')).find((a) => a.name === 'zeta');
      expect(zeta).toEqual(alert('c1', 'zeta', { lastFiredAt: '2026-12-06T02:00:00.000Z', lastMatches: matches }));
      expect(await store.delete('c2', 'al-c1-zeta')).toBe(false);
      expect(await store.delete('c1', 'al-c1-zeta')).toBe(true);
      expect(await store.deleteCatalog('c1')).toBe(1);
      expect(await store.list('c1')).toEqual([]);
      expect((await store.list('c2')).map((a) => a.name)).toEqual(['alpha']);
      await db.close();
    });
  });
}

describe('alert store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gf-alert-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describeAlertStore('SQLite', () => SqliteRecordDatabase.open({ file: join(dir, 'gf.sqlite') }));
});

describe.skipIf(skipPg)('alert store on PostgreSQL', () => {
  let shared: PgTestDatabase;
  beforeAll(async () => {
    shared = await createPgTestDatabase();
  });
  afterAll(async () => {
    await shared?.drop();
  });
  describeAlertStore('PostgreSQL', () => PgRecordDatabase.open({ connectionString: shared.url }));
});
