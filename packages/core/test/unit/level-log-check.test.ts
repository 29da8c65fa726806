import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logDamage } from '../../src/frontier/level-log-check.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** LevelDB's own write-ahead log, as a crawl leaves it: many batches over several 32 KiB blocks. */
describe('the check of a LevelDB write-ahead log', () => {
  let tmp: TempDir;
  let log: Buffer;
  beforeAll(async () => {
    tmp = createTempDir('gf-level-log-');
    const db = new ClassicLevel<string, string>(tmp.path);
    for (let i = 0; i < 600; i++) {
      await db.batch([{ type: 'put', key: `c:0:${String(i).padStart(64, '0')}`, value: 'x'.repeat((i * 37) % 900) }]);
    }
    await db.close();
    const name = readdirSync(tmp.path).find((n) => /^\d+\.log$/.test(n)) as string;
    log = readFileSync(join(tmp.path, name));
  });
  afterAll(() => tmp.remove());

  it('passes a sound log spanning several blocks', () => {
    expect(log.length).toBeGreaterThan(4 * 32768);
    expect(logDamage(log)).toBeUndefined();
  });

  it('passes a log cut anywhere, as a crash leaves it', () => {
    for (let cut = 1; cut < log.length; cut += 997)
      expect(logDamage(log.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
  });

  it('finds random bytes written anywhere over it', () => {
    for (let i = 0; i < 200; i++) {
      const garbled = Buffer.from(log);
      const at = Math.floor((garbled.length - 40) * (i / 200));
      randomBytes(32).copy(garbled, at);
      if (garbled.equals(log)) continue;
      expect(logDamage(garbled), `garbled at ${at}`).toMatch(/fails its checksum|malformed record|past the end/);
    }
  });

  it('finds a length field garbled in the last block (LevelDB itself takes that for a crash and drops the rest)', () => {
    const garbled = Buffer.from(log);
    const lastBlock = Math.floor((log.length - 1) / 32768) * 32768;
    garbled.writeUInt16LE(0xffff, lastBlock + 4);
    expect(logDamage(garbled)).toMatch(/past the end of the log, and records follow it|malformed record/);
  });
});
