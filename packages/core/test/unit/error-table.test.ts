import {
  ConfigError,
  CRAWLER_ERROR_CODES,
  CrawlerError,
  ERROR_TABLE,
  EXIT,
  errorMapping,
  reportOf,
  StageError,
} from '@greenfinger/core';
import { describe, expect, it } from 'vitest';

function errno(code: string, path?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: operation failed`), { code, path });
}

describe('the error table', () => {
  it('maps every error code to an HTTP status and an exit code, and nothing else', () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual([...CRAWLER_ERROR_CODES].sort());
    for (const code of CRAWLER_ERROR_CODES) {
      const m = errorMapping(code);
      expect(m, code).toBeDefined();
      expect(Number.isInteger(m.http) && m.http >= 400 && m.http < 600, code).toBe(true);
      expect([EXIT.failed, EXIT.usage], code).toContain(m.exit);
      // Wrong use is the caller's to fix: 4xx and exit 2; the rest is the work failing: 5xx and exit 1.
      expect(m.http < 500 && code !== 'CONFLICT' ? EXIT.usage : EXIT.failed, code).toBe(m.exit);
    }
  });

  it("keeps today's exit codes and gives the statuses the API answered", () => {
    expect(EXIT).toEqual({ ok: 0, failed: 1, usage: 2, interrupted: 130 });
    expect(ERROR_TABLE.CONFIG).toEqual({ http: 400, exit: 2 });
    expect(ERROR_TABLE.BAD_INPUT).toEqual({ http: 400, exit: 2 });
    expect(ERROR_TABLE.NOT_FOUND).toEqual({ http: 404, exit: 2 });
    expect(ERROR_TABLE.CONFLICT).toEqual({ http: 409, exit: 1 });
    expect(ERROR_TABLE.FETCH).toEqual({ http: 502, exit: 1 });
    expect(ERROR_TABLE.STORAGE.http).toBe(503);
    expect(ERROR_TABLE.CORRUPT.http).toBe(500);
  });

  it('reports a CrawlerError of any subclass by its code, as one line with the fix', () => {
    expect(reportOf(new ConfigError('--depth', 'too small', 'use -1 or more'))).toEqual({
      code: 'CONFIG',
      line: '--depth: too small — use -1 or more',
      http: 400,
      exit: 2,
    });
    expect(reportOf(new CrawlerError('NOT_FOUND', 'no catalog "x"'))).toMatchObject({ http: 404, exit: 2 });
    expect(reportOf(new StageError('index', 'disk full'))).toMatchObject({ code: 'STAGE', http: 500, exit: 1 });
    expect(reportOf(new CrawlerError('FETCH', 'connection refused'))).toMatchObject({
      code: 'FETCH',
      http: 502,
      exit: 1,
    });
  });

  it.each(['EACCES', 'EROFS', 'EPERM'])('reports %s as one line naming the path and the fix', (code) => {
    const r = reportOf(errno(code, '/srv/data/system'));
    expect(r).toMatchObject({ code, http: 500, exit: EXIT.failed });
    expect(r.line).toBe(
      `cannot write /srv/data/system (${code}) — make it writable, or choose another with --data DIR`,
    );
  });

  it('reports ENOSPC as no space, with the path and the fix', () => {
    const r = reportOf(errno('ENOSPC', '/srv/data/user/assets'));
    expect(r).toMatchObject({ code: 'ENOSPC', http: 507, exit: EXIT.failed });
    expect(r.line).toBe(
      'no space left writing /srv/data/user/assets (ENOSPC) — free some space, or choose another data directory with --data DIR',
    );
    expect(reportOf(errno('EACCES')).line).toMatch(/^cannot write the data directory \(EACCES\)/);
  });

  it('reports anything else by its message; an HTTP framework error keeps its status', () => {
    expect(reportOf(new Error('boom'))).toEqual({ code: undefined, line: 'boom', http: 500, exit: 1 });
    expect(reportOf('plain')).toEqual({ code: undefined, line: 'plain', http: 500, exit: 1 });
    const validation = Object.assign(new Error('querystring must have required property q'), {
      statusCode: 400,
      code: 'FST_ERR_VALIDATION',
    });
    expect(reportOf(validation)).toMatchObject({ code: 'FST_ERR_VALIDATION', http: 400, exit: 1 });
    expect(reportOf(Object.assign(new Error('odd'), { statusCode: 200 })).http).toBe(500);
  });
});
