import { clusterSharing, formatStoreProviders, loadSettings, storeProviders } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';

describe('the provider of each layer', () => {
  it('embedded by default: sqlite, sqlite, local, the local model', () => {
    const s = loadSettings({}, {});
    expect(storeProviders(s)).toEqual({
      records: { provider: 'sqlite' },
      index: { provider: 'sqlite' },
      vectors: { provider: 'sqlite', collection: 'greenfinger_text' },
      files: { provider: 'local' },
      embeddings: { provider: 'local', model: 'multilingual-e5-small' },
    });
  });

  it('an endpoint and the external stores, as their settings name them; the width once known', () => {
    const s = {
      ...loadSettings(
        {},
        {
          DATABASE_URL: 'postgresql://u:p@db/gf',
          GF_EMBEDDING_PROVIDER: 'ollama',
          GF_EMBEDDING_URL: 'http://127.0.0.1:11434',
          GF_EMBEDDING_MODEL: 'nomic-embed-text:latest',
        },
      ),
      indexProvider: 'elasticsearch',
      vectorStore: 'qdrant',
      fileTarget: 's3',
    };
    const p = storeProviders(s, 768);
    expect(p).toEqual({
      records: { provider: 'postgresql' },
      index: { provider: 'elasticsearch' },
      vectors: { provider: 'qdrant', collection: 'greenfinger_text_ollama-nomic-embed-text-latest' },
      files: { provider: 's3' },
      embeddings: { provider: 'ollama', model: 'nomic-embed-text:latest', dims: 768 },
    });
    const lines = formatStoreProviders(p, clusterSharing(s));
    expect(lines.map((l) => l.replace(/\s+/g, ' '))).toEqual([
      'records postgresql shared in a cluster',
      'index elasticsearch shared in a cluster',
      'vectors qdrant (greenfinger_text_ollama-nomic-embed-text-latest_{dims}) shared in a cluster',
      'files s3 shared in a cluster',
      'embeddings ollama nomic-embed-text:latest, 768-d',
    ]);
    // one column for the provider, one for the cluster's way
    expect(new Set(lines.slice(0, 4).map((l) => l.indexOf('shared in a cluster'))).size).toBe(1);
    expect(new Set(lines.map((l) => l.indexOf(' ', 11) > 11 && l[11] !== ' ')).size).toBe(1);
  });
});
