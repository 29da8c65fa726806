import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Greenfinger, type SearchResponse } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, corpusRoot, startCorpus } from '../support/corpus.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Seven languages of the Debian handbook, three scripts, two without spaces between words. */
const LANGUAGES = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'ru-RU', 'ja-JP', 'zh-CN'] as const;
const PAGE = 'sect.apt-cache.html';
const CJK = /^(ja|zh)/;

/** The page's own title (without its number) and the opening of its first paragraph, from the corpus's file. */
function queriesOf(lang: string): { title: string; sentence: string } {
  const html = readFileSync(join(corpusRoot('handbook'), lang, PAGE), 'utf8').replace(/\s+/g, ' ');
  const text = (s: string) =>
    s
      .replace(/<[^>]+>/g, ' ')
      .replace(/&[a-z]+;|&#\d+;/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  const title = text(html.match(/<title[^>]*>([^<]*)<\/title>/)?.[1] ?? '').replace(/^[\d.]+\s*/, '');
  const paragraph = text(html.match(/<div class="para">(.*?)<\/div>/)?.[1] ?? '');
  // A sentence's opening: ten words, or twenty characters where words are not spaced.
  const sentence = CJK.test(lang) ? paragraph.slice(0, 20) : paragraph.split(' ').slice(0, 10).join(' ');
  return { title, sentence };
}

/**
 * Words search in seven languages of a real site (the Debian handbook's APT chapter, crawled once per language):
 * the page's title, a keyword query, and the opening of its first paragraph, a sentence (read as a question where
 * it has a word on half the pages), each find the page in the first three in its own language.
 */
describe('words search in seven languages (Debian handbook)', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let gf: Greenfinger;
  const search = (q: string, lang: string): Promise<SearchResponse> =>
    gf.search.search({ q, mode: 'words', catalogs: [lang], size: 10 });
  const paths = (r: SearchResponse) => r.results.map((h) => new URL(h.url).pathname);

  beforeAll(async () => {
    corpus = await startCorpus('handbook');
    tmp = createTempDir('gf-words-languages-');
    gf = await Greenfinger.open({ settings: { dataStore: join(tmp.path, 'data'), workers: 1 } });
    const origin = new URL(corpus.url).origin;
    for (const lang of LANGUAGES) {
      await (await gf.catalogs()).create({
        name: lang,
        url: `${origin}/${lang}/`,
        startUrl: `${origin}/${lang}/apt.html`,
        settings: { intervalMs: 0, maxPages: 12, outputs: ['file', 'index'], threads: 4, robots: false },
      });
      const report = await gf.crawler.crawl({ name: lang });
      expect(report.produced.saved, lang).toBe(12);
    }
  }, 300_000);
  afterAll(async () => {
    await gf?.close();
    await corpus?.stop();
    tmp?.remove();
  });

  for (const lang of LANGUAGES) {
    it(`${lang}: the title, a keyword and a sentence of the page find it`, async () => {
      const { title, sentence } = queriesOf(lang);
      expect(title.length).toBeGreaterThan(3);
      expect(sentence.length).toBeGreaterThan(10);
      const want = `/${lang}/${PAGE}`;
      const byTitle = await search(title, lang);
      expect(paths(byTitle).slice(0, 3), `${lang} title "${title}"`).toContain(want);
      expect(paths(await search('apt-cache', lang)).slice(0, 3), `${lang} apt-cache`).toContain(want);
      const bySentence = await search(sentence, lang);
      // Ten words of prose hold a word on half the pages (an article, a preposition) in every language.
      expect(bySentence.match, `${lang} sentence "${sentence}"`).toBe('question');
      expect(paths(bySentence).slice(0, 3), `${lang} sentence "${sentence}" (${bySentence.match})`).toContain(want);
      for (const p of [...paths(byTitle), ...paths(bySentence)]) expect(p.startsWith(`/${lang}/`)).toBe(true);
    });
  }
});
