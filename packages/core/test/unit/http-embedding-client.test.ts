import {
  ConfigError,
  CrawlerError,
  createEmbeddingClient,
  type EndpointAnswer,
  HttpEmbeddingClient,
  isRetryableStatus,
  loadSettings,
  type PostJson,
  postWithRetry,
  retryDelayMs,
  vectorCollectionName,
  vectorSpace,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const policy = { retries: 3, baseMs: 500, maxWaitMs: 30_000, timeoutMs: 1000 };

/** A scripted endpoint: each call takes the next answer (or throws it), and every request is kept. */
function scripted(answers: Array<EndpointAnswer | Error>) {
  const calls: Array<{ url: string; body: unknown; headers: Record<string, string> }> = [];
  const post: PostJson = async (url, body, headers) => {
    calls.push({ url, body: JSON.parse(body), headers });
    const next = answers.shift();
    if (!next) throw new Error('no more answers scripted');
    if (next instanceof Error) throw next;
    return next;
  };
  return { post, calls };
}

const ok = (body: unknown): EndpointAnswer => ({ status: 200, retryAfter: null, body: JSON.stringify(body) });
const status = (code: number, retryAfter: string | null = null): EndpointAnswer => ({
  status: code,
  retryAfter,
  body: `{"error":"status ${code}"}`,
});
const refused = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

describe('embedding endpoint retries', () => {
  it('429 and 5xx are retried, other answers are final', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });

  it('backoff doubles from baseMs, bounded by maxWaitMs; Retry-After in seconds or as a date wins, bounded too', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, null, policy))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelayMs(12, null, policy)).toBe(30_000);
    expect(retryDelayMs(1, '7', policy)).toBe(7000);
    expect(retryDelayMs(1, '0.25', policy)).toBe(250);
    expect(retryDelayMs(1, '3600', policy)).toBe(30_000);
    const now = Date.parse('2026-12-06T10:00:00Z');
    expect(retryDelayMs(1, 'Sun, 06 Dec 2026 10:00:04 GMT', policy, now)).toBe(4000);
    expect(retryDelayMs(1, 'Sun, 06 Dec 2026 09:00:00 GMT', policy, now)).toBe(0);
    expect(retryDelayMs(2, 'soon', policy)).toBe(1000);
  });

  it('a 503 then a 429 with Retry-After are waited out, then the answer is returned', async () => {
    const { post, calls } = scripted([status(503), status(429, '2'), ok({ fine: true })]);
    const waits: number[] = [];
    const body = await postWithRetry(
      'http://e/x',
      { a: 1 },
      {},
      {
        policy,
        post,
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    );
    expect(JSON.parse(body)).toEqual({ fine: true });
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([500, 2000]);
  });

  it('gives up after `retries` retries with one line saying the last answer', async () => {
    const { post, calls } = scripted([status(500), status(500), status(502), status(503)]);
    const err = await postWithRetry('http://e/x', {}, {}, { policy, post, sleep: async () => {} }).catch((e) => e);
    expect(calls).toHaveLength(4);
    expect(err).toBeInstanceOf(CrawlerError);
    expect((err as CrawlerError).code).toBe('EMBEDDING');
    expect((err as CrawlerError).toLine()).toMatch(/failed 4 times, last: 503 .*GF_EMBEDDING_RETRIES/);
  });

  it('401 names GF_EMBEDDING_API_KEY, 404 names the url setting and GF_EMBEDDING_MODEL, 400 is final', async () => {
    for (const [code, field] of [
      [401, 'GF_EMBEDDING_API_KEY'],
      [404, 'GF_EMBEDDING_URL'],
    ] as const) {
      const { post, calls } = scripted([status(code)]);
      const err = await postWithRetry('http://e/x', {}, {}, { policy, post, sleep: async () => {} }).catch((e) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).field).toBe(field);
      expect(calls).toHaveLength(1);
    }
    const { post, calls } = scripted([status(400)]);
    const err = await postWithRetry('http://e/x', {}, {}, { policy, post, sleep: async () => {} }).catch((e) => e);
    expect((err as CrawlerError).code).toBe('EMBEDDING');
    expect(calls).toHaveLength(1);
  });

  it('a refused connection: retried during a crawl, at once a ConfigError naming GF_EMBEDDING_URL at connect', async () => {
    const later = scripted([refused(), ok({ up: 1 })]);
    expect(await postWithRetry('http://e/x', {}, {}, { policy, post: later.post, sleep: async () => {} })).toBe(
      '{"up":1}',
    );
    const atStart = scripted([refused(), ok({ up: 1 })]);
    const err = await postWithRetry(
      'http://e/x',
      {},
      {},
      {
        policy,
        post: atStart.post,
        failFastOnConnect: true,
      },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).toLine()).toMatch(
      /^GF_EMBEDDING_URL: nothing answers at http:\/\/e\/x \(ECONNREFUSED\)/,
    );
    expect(atStart.calls).toHaveLength(1);
  });

  it('an attempt past timeoutMs is abandoned and retried', async () => {
    let n = 0;
    const post: PostJson = (_url, _body, _headers, signal) => {
      n++;
      if (n > 1) return Promise.resolve(ok([1]));
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    };
    const retries: string[] = [];
    const body = await postWithRetry(
      'http://e/x',
      {},
      {},
      {
        policy: { ...policy, timeoutMs: 100 },
        post,
        sleep: async () => {},
        onRetry: (_a, _w, why) => retries.push(why),
      },
    );
    expect(body).toBe('[1]');
    expect(retries).toEqual(['no answer within 100 ms']);
  });
});

describe('HttpEmbeddingClient', () => {
  /** An OpenAI-compatible answer: vectors [len, i, 1] for each input, listed in reverse to check `index` is read. */
  const openaiPost =
    (calls: string[][]): PostJson =>
    async (_url, body) => {
      const { input } = JSON.parse(body) as { input: string[] };
      calls.push(input);
      const data = input.map((t, index) => ({ index, embedding: [t.length, index, 1] })).reverse();
      return ok({ data, model: 'm' });
    };

  it('reads the width from the probe, batches documents, keeps input order by `index`, normalises', async () => {
    const calls: string[][] = [];
    const client = await HttpEmbeddingClient.connect({
      provider: 'openai',
      url: 'http://e/v1/',
      model: 'm',
      batchSize: 2,
      post: openaiPost(calls),
    });
    expect(client.dims).toBe(3);
    expect(client.endpoint).toBe('http://e/v1/embeddings');
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vectors = await client.embedDocuments(texts);
    expect(calls.slice(1)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(vectors).toHaveLength(5);
    for (const [i, v] of vectors.entries()) {
      const raw = [texts[i]?.length ?? 0, i % 2, 1];
      const norm = Math.hypot(...raw);
      expect([...v].map((x) => Number(x.toFixed(5)))).toEqual(raw.map((x) => Number((x / norm).toFixed(5))));
    }
    expect(client.requests).toBe(4);
    expect(client.describe()).toContain('openai m at http://e/v1/embeddings (3-d');
  });

  it('ollama: POST {url}/api/embed {model, input}, answer {embeddings}; bearer key sent when set', async () => {
    const seen: Array<{ url: string; body: unknown; auth: string | undefined }> = [];
    const post: PostJson = async (url, body, headers) => {
      seen.push({ url, body: JSON.parse(body), auth: headers.authorization });
      const { input } = JSON.parse(body) as { input: string[] };
      return ok({ model: 'nomic', embeddings: input.map(() => [3, 4]) });
    };
    const client = await HttpEmbeddingClient.connect({
      provider: 'ollama',
      url: 'http://o:11434',
      model: 'nomic',
      apiKey: 'k',
      post,
    });
    const q = await client.embedQuery('what');
    expect([...q]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(seen[1]).toEqual({
      url: 'http://o:11434/api/embed',
      body: { model: 'nomic', input: ['what'] },
      auth: 'Bearer k',
    });
  });

  it('an answer of another width or the wrong shape is refused in one line', async () => {
    let width = 3;
    const post: PostJson = async (_u, body) => {
      const { input } = JSON.parse(body) as { input: string[] };
      return ok({ embeddings: input.map(() => new Array(width).fill(1)) });
    };
    const client = await HttpEmbeddingClient.connect({ provider: 'ollama', url: 'http://o', model: 'x', post });
    width = 4;
    await expect(client.embedQuery('q')).rejects.toThrow(/answered a 4-d vector, not 3-d/);
    const wrong = HttpEmbeddingClient.connect({ provider: 'openai', url: 'http://o', model: 'x', post });
    await expect(wrong).rejects.toThrow(/did not answer as openai does: no "data" array/);
  });

  it('createEmbeddingClient refuses a missing url or model in one line naming the setting', async () => {
    const base = { modelDir: './models', textModel: 'none' };
    await expect(createEmbeddingClient({ ...base, embeddingProvider: 'openai' })).rejects.toThrow(
      /^GF_EMBEDDING_URL: is required with GF_EMBEDDING_PROVIDER=openai/,
    );
    await expect(
      createEmbeddingClient({ ...base, embeddingProvider: 'ollama', embeddingUrl: 'http://127.0.0.1:9' }),
    ).rejects.toThrow(/^GF_EMBEDDING_MODEL: is required/);
  });

  it('settings: the provider enum, the endpoint settings, the key masked', () => {
    const s = loadSettings(
      {},
      {
        GF_EMBEDDING_PROVIDER: 'openai',
        GF_EMBEDDING_URL: 'http://127.0.0.1:8000/v1',
        GF_EMBEDDING_MODEL: 'BAAI/bge-small-en-v1.5',
        GF_EMBEDDING_BATCH: '8',
      },
    );
    expect(s).toMatchObject({ embeddingProvider: 'openai', embeddingBatch: 8, embeddingRetries: 4 });
    expect(() => loadSettings({}, { GF_EMBEDDING_PROVIDER: 'cohere' })).toThrow(/^GF_EMBEDDING_PROVIDER: /);
    expect(vectorSpace(s)).toBe('openai-baai-bge-small-en-v1-5');
    expect(vectorCollectionName(s)).toBe('greenfinger_text_openai-baai-bge-small-en-v1-5');
    expect(vectorCollectionName(loadSettings({}, {}))).toBe('greenfinger_text');
  });
});
