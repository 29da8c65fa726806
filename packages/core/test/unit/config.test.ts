import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadSettings, resolveCatalogSettings, settingsEnv } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';

const envExample = readFileSync(fileURLToPath(new URL('../../../../.env.example', import.meta.url)), 'utf8');

describe('settings', () => {
  it('.env.example lists every setting', () => {
    for (const name of Object.values(settingsEnv)) expect(envExample, name).toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it('flags win over the environment, which wins over defaults', () => {
    const s = loadSettings({ chunkSize: 500 }, { GF_CHUNK_SIZE: '700', GF_MAX_CHUNKS: '3' });
    expect(s.chunkSize).toBe(500);
    expect(s.maxChunks).toBe(3);
    expect(s.dataStore).toBe('./data');
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('a bad value names the variable and the fix', () => {
    expect(() => loadSettings({}, { GF_CONTENT_DEDUP: 'md5' })).toThrow(ConfigError);
    expect(() => loadSettings({}, { GF_CONTENT_DEDUP: 'md5' })).toThrow(/GF_CONTENT_DEDUP/);
  });

  it('champion-list settings come from GF_INDEX_CHAMPION_MIN_DF and GF_INDEX_CHAMPION_SIZE', () => {
    expect(loadSettings({}, {})).toMatchObject({ championMinDf: 4000, championSize: 1000 });
    const s = loadSettings({}, { GF_INDEX_CHAMPION_MIN_DF: '500', GF_INDEX_CHAMPION_SIZE: '200' });
    expect(s).toMatchObject({ championMinDf: 500, championSize: 200 });
    expect(() => loadSettings({}, { GF_INDEX_CHAMPION_MIN_DF: '0' })).toThrow(/GF_INDEX_CHAMPION_MIN_DF/);
    expect(() => loadSettings({}, { GF_INDEX_CHAMPION_SIZE: 'many' })).toThrow(/GF_INDEX_CHAMPION_SIZE/);
  });

  it('the word-pair table threshold comes from GF_INDEX_PAIRS_MIN_DOCS (0 = never)', () => {
    expect(loadSettings({}, {}).pairsMinDocs).toBe(10_000);
    expect(loadSettings({}, { GF_INDEX_PAIRS_MIN_DOCS: '0' }).pairsMinDocs).toBe(0);
    expect(loadSettings({}, { GF_INDEX_PAIRS_MIN_DOCS: '2500' }).pairsMinDocs).toBe(2500);
    expect(() => loadSettings({}, { GF_INDEX_PAIRS_MIN_DOCS: '-1' })).toThrow(/GF_INDEX_PAIRS_MIN_DOCS/);
  });

  it('catalog settings: file is always on and first; a bad value names the flag', () => {
    expect(resolveCatalogSettings({ outputs: ['vector', 'index'] }).outputs).toEqual(['file', 'index', 'vector']);
    expect(() => resolveCatalogSettings({ maxPages: 0 })).toThrow(/--max-pages/);
    expect(() => resolveCatalogSettings({ depth: -2 })).toThrow(/--depth/);
  });
});
