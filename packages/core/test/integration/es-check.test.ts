import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors } from '@elastic/elasticsearch';
import { ConfigError, CrawlerError } from '@greenfinger/core';
import { checkEs } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esError } from '../../src/index/elasticsearch/es-client.js';

/**
 * GF_ES_URL pointing at a server that is not Elasticsearch (another service on that port, a proxy) is refused at
 * start in one line naming GF_ES_URL, as a url where nothing answers is. The server here plays no Elasticsearch:
 * it answers as a wrong one would.
 */
describe('checkEs: a url whose server is not Elasticsearch', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith('/plain')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"not elasticsearch"}');
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a 404 names GF_ES_URL', async () => {
    const err = await checkEs({ url: `${base}/` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('GF_ES_URL');
    expect((err as Error).message).toContain('is not Elasticsearch (HTTP 404)');
  });

  it('a 200 without the Elasticsearch product header names GF_ES_URL', async () => {
    const err = await checkEs({ url: `${base}/plain` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('GF_ES_URL');
    expect((err as Error).message).toContain('is not Elasticsearch');
    expect((err as Error).message).not.toContain('\n');
  });

  it('a url that is not http(s) names GF_ES_URL', async () => {
    await expect(checkEs({ url: 'ftp://127.0.0.1/' })).rejects.toMatchObject({ field: 'GF_ES_URL' });
  });

  it("a deadline passed during work is the server's load, not a wrong url; a refused connection is the url", () => {
    const slow = esError(new errors.TimeoutError('Request timed out'), base, 'search x');
    expect(slow).toBeInstanceOf(CrawlerError);
    expect(slow).not.toBeInstanceOf(ConfigError);
    expect(slow.code).toBe('STORAGE');
    const atStart = esError(new errors.TimeoutError('Request timed out'), base, 'answer');
    expect(atStart).toMatchObject({ field: 'GF_ES_URL' });
    const refused = esError(new errors.ConnectionError('connect ECONNREFUSED'), base, 'search x');
    expect(refused).toMatchObject({ field: 'GF_ES_URL' });
  });
});
