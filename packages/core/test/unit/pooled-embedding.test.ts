import { type EmbeddingClient, PooledEmbeddingClient } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

/** A fake client: the vector of a text is [text length, client number]; records the batches it was given. */
function fake(n: number, model = 'm', dims = 2) {
  const batches: string[][] = [];
  let closed = false;
  const client: EmbeddingClient = {
    provider: 'local',
    model,
    dims,
    describe: () => `fake ${n}, in a worker thread`,
    embedDocuments: async (texts) => {
      batches.push(texts);
      await new Promise((r) => setTimeout(r, 5));
      return texts.map((t) => Float32Array.of(t.length, n));
    },
    embedQuery: async (t) => Float32Array.of(t.length, n),
    close: async () => {
      closed = true;
    },
  };
  return { client, batches, isClosed: () => closed };
}

describe('PooledEmbeddingClient', () => {
  it('splits a batch of documents across its clients and returns vectors in input order', async () => {
    const a = fake(1);
    const b = fake(2);
    let started = 0;
    const pool = new PooledEmbeddingClient(
      a.client,
      async () => {
        started++;
        return [b.client];
      },
      2,
    );
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const out = await pool.embedDocuments(texts);
    expect(out.map((v) => v[0])).toEqual([1, 2, 3, 4, 5]);
    expect(a.batches).toEqual([['a', 'bb', 'ccc']]);
    expect(b.batches).toEqual([['dddd', 'eeeee']]);
    await pool.embedDocuments(['x', 'y']);
    expect(started).toBe(1);
    expect(pool.size).toBe(2);
    expect(pool.describe()).toBe('fake 1, in a worker thread (2 of them for documents)');
    await pool.close();
    expect(a.isClosed() && b.isClosed()).toBe(true);
  });

  it('answers queries with the first client and starts no other for them', async () => {
    const a = fake(1);
    let started = 0;
    const pool = new PooledEmbeddingClient(
      a.client,
      async () => {
        started++;
        return [fake(2).client];
      },
      2,
    );
    expect(Array.from(await pool.embedQuery('abc'))).toEqual([3, 1]);
    expect(Array.from((await pool.embedDocuments(['one']))[0] as Float32Array)).toEqual([3, 1]);
    expect(started).toBe(0);
    expect(await pool.embedDocuments([])).toEqual([]);
    await pool.close();
  });

  it('refuses extra clients of another model, and closes them', async () => {
    const other = fake(2, 'other');
    const pool = new PooledEmbeddingClient(fake(1).client, async () => [other.client], 2);
    await expect(pool.embedDocuments(['a', 'b'])).rejects.toMatchObject({ code: 'EMBEDDING' });
    expect(other.isClosed()).toBe(true);
    await pool.close();
  });

  it('closes clients that finish starting after the pool was closed', async () => {
    const late = fake(2);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const pool = new PooledEmbeddingClient(
      fake(1).client,
      async () => {
        await gate;
        return [late.client];
      },
      2,
    );
    const pending = pool.embedDocuments(['a', 'b']);
    const closing = pool.close();
    release();
    await closing;
    await pending.catch(() => {});
    expect(late.isClosed()).toBe(true);
  });
});
