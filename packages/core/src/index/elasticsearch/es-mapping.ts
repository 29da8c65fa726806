import type { IndexDocument } from '../search-index.js';

/*
 * What an Elasticsearch index of Greenfinger holds and how its text is analysed: pure builders, no client (the unit
 * tests read them as they are sent).
 */

/** The catalog ids Greenfinger makes (uuid v7, lower case): how a catalog index is told from anything else. */
const CATALOG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One index per catalog: `{prefix}-{catalogId}` (GF_INDEX_PREFIX, as the embedded index names its directories). */
export function catalogIndexName(prefix: string, catalogId: string): string {
  return `${prefix}-${catalogId.toLowerCase()}`;
}

/** The catalog id of an index name of this prefix, undefined for any other index. */
export function catalogOfIndex(prefix: string, index: string): string | undefined {
  if (!index.startsWith(`${prefix}-`)) return undefined;
  const id = index.slice(prefix.length + 1);
  return CATALOG_ID.test(id) ? id : undefined;
}

/** The version filter's key: `catalogId:version`, one keyword per document. */
export function catalogVersionKey(catalogId: string, version: number): string {
  return `${catalogId}:${version}`;
}

/** A document's `_id`: a page is in a catalog index once per version. */
export function documentId(version: number, resourceId: string): string {
  return `${version}:${resourceId}`;
}

/** Language analyzers that come with an Elasticsearch plugin, and which scripts they are for. */
export const LANGUAGE_PLUGINS = [
  {
    lang: 'ja',
    plugin: 'analysis-kuromoji',
    analyzer: 'kuromoji',
    script: /[\p{Script=Hiragana}\p{Script=Katakana}]/u,
  },
  { lang: 'ko', plugin: 'analysis-nori', analyzer: 'nori', script: /\p{Script=Hangul}/u },
  { lang: 'zh', plugin: 'analysis-smartcn', analyzer: 'smartcn', script: /\p{Script=Han}/u },
] as const;

export type LanguageCode = (typeof LANGUAGE_PLUGINS)[number]['lang'];

/** What the server has: its analysis plugins decide the analyzers of a new index. */
export interface AnalysisPlugins {
  /** analysis-icu: Unicode word breaking (Thai, Lao, Khmer, Myanmar by dictionary) and folding. */
  icu: boolean;
  /** The language analyzers installed (kuromoji, nori, smartcn). */
  languages: LanguageCode[];
}

/** The plugins of `_cat/plugins` that matter here. */
export function analysisPlugins(components: readonly string[]): AnalysisPlugins {
  const have = new Set(components);
  return {
    icu: have.has('analysis-icu'),
    languages: LANGUAGE_PLUGINS.filter((p) => have.has(p.plugin)).map((p) => p.lang),
  };
}

/**
 * The warnings for documents whose text is in a script the server has no analyzer plugin for (searched then by
 * the standard tokenizer, a character at a time for CJK): one per missing plugin, naming it.
 */
export function missingPluginWarnings(texts: readonly string[], plugins: AnalysisPlugins): string[] {
  const warnings: string[] = [];
  for (const p of LANGUAGE_PLUGINS) {
    if (plugins.languages.includes(p.lang)) continue;
    // Japanese is written with Han characters too: Chinese is a text with Han and no kana.
    const kana = (LANGUAGE_PLUGINS[0] as { script: RegExp }).script;
    if (!texts.some((t) => p.script.test(t) && (p.lang !== 'zh' || !kana.test(t)))) continue;
    warnings.push(
      `Elasticsearch has no ${p.plugin} plugin: ${p.lang} text is searched by single characters, not words ` +
        `(install it on every node: bin/elasticsearch-plugin install ${p.plugin}, then purge and crawl the catalog)`,
    );
  }
  return warnings;
}

/** The text fields and their weights (the embedded index's bm25 weights: title, text, image text). */
export const TEXT_FIELDS = ['title', 'text', 'imageText'] as const;
export const DEFAULT_WEIGHTS: readonly [number, number, number] = [10, 1, 0.5];

/**
 * Settings and mappings of a new catalog index. One shard, so bm25's statistics (and the scores the cursor
 * carries) are the same on every request. The text is analysed as the embedded index does it (words, lower case,
 * accents folded, Porter stems, no stop words), with a sub-field per installed language analyzer.
 */
export function catalogIndexBody(plugins: AnalysisPlugins): {
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
} {
  const langFields = Object.fromEntries(
    LANGUAGE_PLUGINS.filter((p) => plugins.languages.includes(p.lang)).map((p) => [
      p.lang,
      { type: 'text', analyzer: p.analyzer, index_options: 'offsets' },
    ]),
  );
  const text = (withLanguages: boolean) => ({
    type: 'text',
    analyzer: 'gf_text',
    index_options: 'offsets',
    ...(withLanguages && Object.keys(langFields).length ? { fields: langFields } : {}),
  });
  return {
    settings: {
      number_of_shards: 1,
      analysis: {
        analyzer: {
          gf_text: {
            type: 'custom',
            tokenizer: plugins.icu ? 'icu_tokenizer' : 'standard',
            filter: ['lowercase', 'asciifolding', 'porter_stem'],
          },
        },
      },
    },
    mappings: {
      dynamic: false,
      properties: {
        id: { type: 'keyword' },
        catalogId: { type: 'keyword' },
        catalogVersion: { type: 'keyword' },
        version: { type: 'integer' },
        title: text(true),
        text: text(true),
        imageText: text(false),
        linkDensity: { type: 'float' },
        detailFactor: { type: 'float' },
        fetchedAt: { type: 'date', ignore_malformed: true },
      },
    },
  };
}

/** The multiplier of a page's score when detail pages are preferred: `1.5 - linkDensity`, within [0.5, 1.5]. */
export function detailFactor(linkDensity: number): number {
  const d = Number.isFinite(linkDensity) ? linkDensity : 0;
  return Math.max(0.5, Math.min(1.5, 1.5 - d));
}

/** The `_source` of a page: self-contained (version, file paths, pictures), search never reads the database. */
export interface EsPageSource extends IndexDocument {
  catalogVersion: string;
  detailFactor: number;
}

export function toEsDocument(doc: IndexDocument): EsPageSource {
  return {
    ...doc,
    catalogVersion: catalogVersionKey(doc.catalogId, doc.version),
    detailFactor: detailFactor(doc.linkDensity),
  };
}
