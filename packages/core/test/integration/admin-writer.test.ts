import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

describe('the admin writer', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  beforeAll(async () => {
    tmp = createTempDir('gf-writer-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 0 } });
  });
  afterAll(async () => {
    await gf?.close();
    tmp?.remove();
  });

  it('an edit of the definition made from a stale copy keeps the running state and versions a run wrote meanwhile', async () => {
    const catalogs = await gf.catalogs();
    const created = await catalogs.create({ url: 'http://127.0.0.1:9/', name: 'stale' });
    const stale = await catalogs.get({ id: created.id });
    await gf.writer.setRunningState(created.id, 'rebuild', 3);
    const edited = await catalogs.update(created.id, { settings: { maxPages: 5 } });
    expect(edited).toMatchObject({ runningState: 'rebuild', indexVersion: 3, settings: { maxPages: 5 } });
    await gf.writer.updateDefinition(created.id, { ...stale, name: 'renamed' });
    expect(await catalogs.get({ id: created.id })).toMatchObject({
      name: 'renamed',
      runningState: 'rebuild',
      indexVersion: 3,
    });
  });

  it('read-then-write operations of one catalog run one after the other', async () => {
    const catalogs = await gf.catalogs();
    const c = await catalogs.create({ url: 'http://127.0.0.1:9/b/', name: 'serial' });
    // Fired together: each must see the one before it, so none undoes another.
    await Promise.all([
      gf.writer.setRunningState(c.id, 'crawl', 1),
      catalogs.update(c.id, { settings: { depth: 2 } }),
      gf.writer.setRunningState(c.id, 'none'),
    ]);
    expect(await catalogs.get({ id: c.id })).toMatchObject({
      runningState: 'none',
      indexVersion: 1,
      settings: { depth: 2 },
    });
  });
});
