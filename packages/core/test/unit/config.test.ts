import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type CatalogSettings,
  ConfigError,
  catalogSettingsSchema,
  defaultCatalogSettings,
  envDataStore,
  envLogLevel,
  ftsExtensionFile,
  loadSettings,
  nodeFlags,
  processEnv,
  resolveCatalogSettings,
  settingsEnv,
  unknownEnv,
} from '@greenfinger/core';
import { describe, expect, it } from 'vitest';

const envExample = readFileSync(fileURLToPath(new URL('../../../../.env.example', import.meta.url)), 'utf8');

describe('settings', () => {
  it('.env.example lists every setting', () => {
    for (const name of Object.values(settingsEnv)) expect(envExample, name).toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it('.env.example lists the process variables too (but the FTS extension file, which has no default)', () => {
    expect(envExample).toMatch(new RegExp(`^${processEnv.semiSpaceMb}=4$`, 'm'));
    expect(envExample).toMatch(new RegExp(`^${processEnv.heapGrowingPercent}=50$`, 'm'));
    expect(envExample).toMatch(new RegExp(`^# ?${processEnv.ftsExtension}=`, 'm'));
  });

  it('the V8 flags of the command line: defaults, overrides, and garbage keeps the default', () => {
    expect(nodeFlags({})).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=50']);
    expect(nodeFlags({ GF_NODE_SEMI_SPACE_MB: '16', GF_NODE_HEAP_GROWING_PERCENT: '100' })).toEqual([
      '--max-semi-space-size=16',
      '--heap-growing-percent=100',
    ]);
    expect(nodeFlags({ GF_NODE_SEMI_SPACE_MB: 'lots', GF_NODE_HEAP_GROWING_PERCENT: '' })).toEqual([
      '--max-semi-space-size=4',
      '--heap-growing-percent=50',
    ]);
  });

  it('the values read before settings load: FTS extension file, log level, data root', () => {
    expect(ftsExtensionFile({})).toBeUndefined();
    expect(ftsExtensionFile({ GF_FTS_EXTENSION: '/opt/gf_fts.so' })).toBe('/opt/gf_fts.so');
    expect(envLogLevel({})).toBeUndefined();
    expect(envLogLevel({ GF_LOG_LEVEL: 'debug' })).toBe('debug');
    expect(() => envLogLevel({ GF_LOG_LEVEL: 'loud' })).toThrow(/GF_LOG_LEVEL.*loud/);
    expect(envDataStore({})).toBe('./data');
    expect(envDataStore({ GF_DATA_STORE: '' })).toBe('./data');
    expect(envDataStore({ GF_DATA_STORE: '/srv/gf' })).toBe('/srv/gf');
  });

  it("unknownEnv lists GF_* variables no setting reads, not the scripts' own or other variables", () => {
    expect(
      unknownEnv({
        GF_TIMEOUT: '5',
        GF_TIMEOUT_MS: '5',
        GF_DATA_STORE: '/x',
        GF_NODE_SEMI_SPACE_MB: '8',
        GF_FTS_EXTENSION: '/x.so',
        GF_TEST_PG_URL: 'postgres://',
        GF_SCHEMA_DIR: '/s',
        GF_CHUNKSIZE: '9',
        HOME: '/root',
        DATABASE_URL: '',
      }),
    ).toEqual(['GF_CHUNKSIZE', 'GF_TIMEOUT']);
    expect(unknownEnv({})).toEqual([]);
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
    expect(() => resolveCatalogSettings({ durationMinutes: 0 })).toThrow(/^--duration:/);
    expect(() => resolveCatalogSettings({ intervalMs: -1 })).toThrow(/^--interval:/);
    expect(() => resolveCatalogSettings({ threads: 0 })).toThrow(ConfigError);
  });

  it("catalog settings are defined once: the defaults are the schema's, every field has one", () => {
    expect(catalogSettingsSchema.parse({})).toEqual(defaultCatalogSettings);
    expect(resolveCatalogSettings()).toEqual(defaultCatalogSettings);
    expect(Object.keys(defaultCatalogSettings).sort()).toEqual(Object.keys(catalogSettingsSchema.shape).sort());
    expect(Object.isFrozen(defaultCatalogSettings)).toBe(true);
    expect(defaultCatalogSettings).toMatchObject({
      depth: -1,
      maxPages: 10000,
      durationMinutes: 30,
      intervalMs: 100,
      threads: 16,
      hostConcurrency: 2,
      include: [],
      exclude: [],
      outputs: ['file', 'index', 'vector'],
      images: true,
      maxVersions: 10,
      maxRetries: 1,
      robots: true,
      sitemap: true,
      maxConsecutiveFailures: 20,
      acceptors: [],
      fetcher: 'http',
      contentExtractor: 'html',
      contentDedup: '',
    });
    // Each resolve gets its own arrays: changing one catalog's list does not change the defaults.
    const a = resolveCatalogSettings();
    a.include.push('/x/**');
    expect(resolveCatalogSettings().include).toEqual([]);
  });

  it('a catalog stored before the component fields existed still resolves, with their defaults', () => {
    const stored = {
      depth: 3,
      maxPages: 100,
      durationMinutes: 5,
      intervalMs: 100,
      threads: 4,
      hostConcurrency: 2,
      include: ['/docs/**'],
      exclude: [],
      outputs: ['file', 'index'],
      images: true,
      maxVersions: 10,
      maxRetries: 1,
      robots: true,
      sitemap: false,
      maxConsecutiveFailures: 20,
    } as Partial<CatalogSettings>;
    const s = resolveCatalogSettings(JSON.parse(JSON.stringify(stored)));
    expect(s).toMatchObject({ ...stored, acceptors: [], fetcher: 'http', contentExtractor: 'html', contentDedup: '' });
  });

  it('the component fields take names; a malformed name names the flag', () => {
    const s = resolveCatalogSettings({
      acceptors: ['robots-txt', 'my.rule'],
      fetcher: 'browser',
      contentExtractor: 'readability',
      contentDedup: 'simhash',
    });
    expect(s).toMatchObject({
      acceptors: ['robots-txt', 'my.rule'],
      fetcher: 'browser',
      contentExtractor: 'readability',
      contentDedup: 'simhash',
    });
    expect(() => resolveCatalogSettings({ acceptors: ['Robots'] })).toThrow(/^--acceptors:/);
    expect(() => resolveCatalogSettings({ fetcher: '' })).toThrow(/^--fetcher:/);
    expect(() => resolveCatalogSettings({ contentExtractor: 'read ability' })).toThrow(/^--content-extractor:/);
    expect(() => resolveCatalogSettings({ contentDedup: '-x' })).toThrow(/^--content-dedup:/);
    expect(resolveCatalogSettings({ contentDedup: '' }).contentDedup).toBe('');
  });

  it('an unknown catalog setting is named, not swallowed', () => {
    expect(() => resolveCatalogSettings({ maxPage: 3 } as Partial<CatalogSettings>)).toThrow(
      /--max-page: not a catalog setting/,
    );
  });
});
