import {
  ConfigError,
  contentExtractors,
  createContentExtractor,
  HtmlContentExtractor,
  ReadabilityContentExtractor,
  weightedLength,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const sentence = (i: number) =>
  `Paragraph ${i} of the article explains how a polite crawler spaces its requests, follows redirects carefully and keeps only the text a reader came for.`;

const sidebar = Array.from(
  { length: 40 },
  (_, i) => `<li><a href="/topic/${i}">Sidebar topic number ${i}</a></li>`,
).join('');

/** An article page with header, 40-link sidebar, footer, a form and scripts around the content. */
const articlePage = `<!doctype html>
<html lang="en-GB"><head>
<title>  How crawlers
  stay polite </title>
<meta name="description" content="A guide to politeness.">
<link rel="canonical" href="/articles/polite?utm_source=x">
<script>var tracking = "SCRIPT TEXT";</script><style>.x{color:red}</style>
</head><body>
<header><a href="/">Home</a> <a href="/about">About</a> HEADER TEXT</header>
<nav class="top"><ul><li><a href="/news">News</a></li><li><a href="/blog">Blog</a></li></ul></nav>
<div id="wrap">
  <div class="sidebar"><h3>Topics</h3><ul>${sidebar}</ul></div>
  <div class="post-content">
    <h1>How crawlers stay polite</h1>
    ${Array.from({ length: 8 }, (_, i) => `<p>${sentence(i)} See <a href="/ref/${i}">reference ${i}</a>.</p>`).join('\n')}
    <p>Entities &amp; breaks:<br>line two &lt;ok&gt;</p>
    <div class="share"><a href="https://twitter.example/share">Share on Twitter</a> <a href="mailto:a@b">Mail</a></div>
  </div>
</div>
<form action="/search"><input name="q"><label>FORM TEXT search the site</label></form>
<noscript>NOSCRIPT TEXT</noscript>
<footer><p>FOOTER TEXT copyright</p><a href="/privacy" rel="nofollow">Privacy</a></footer>
</body></html>`;

const listingPage = `<html><head><title>Archive</title></head><body><div class="content"><ul>
${Array.from({ length: 60 }, (_, i) => `<li><a href="/post/${i}">Post title number ${i} about crawling</a></li>`).join('')}
</ul></div></body></html>`;

describe('HtmlContentExtractor', () => {
  const ex = new HtmlContentExtractor();

  it('keeps the article and drops the sidebar, navigation, header, footer, forms and scripts', () => {
    const c = ex.extract(articlePage, 'https://site.test/articles/polite');
    expect(c.title).toBe('How crawlers stay polite');
    expect(c.text).toContain('How crawlers stay polite');
    for (let i = 0; i < 8; i++) expect(c.text).toContain(`Paragraph ${i} of the article`);
    for (const junk of [
      'Sidebar topic',
      'HEADER TEXT',
      'FOOTER TEXT',
      'FORM TEXT',
      'SCRIPT TEXT',
      'NOSCRIPT',
      'Share on',
      'color:red',
    ]) {
      expect(c.text).not.toContain(junk);
    }
    expect(c.text).toContain('Entities & breaks:\nline two <ok>');
    expect(c.text.split('\n\n').length).toBeGreaterThanOrEqual(9);
    expect(c.lang).toBe('en-GB');
    expect(c.description).toBe('A guide to politeness.');
    expect(c.canonical).toBe('https://site.test/articles/polite');
    expect(c.robots).toEqual({ noindex: false, nofollow: false });
  });

  it('collects absolute links with their text and nofollow, resolved against the page', () => {
    const c = ex.extract(articlePage, 'https://site.test/articles/polite');
    const urls = c.links.map((l) => l.url);
    expect(urls).toContain('https://site.test/topic/39');
    expect(urls).toContain('https://site.test/ref/0');
    expect(urls).toContain('https://twitter.example/share');
    expect(urls.some((u) => u.startsWith('mailto:'))).toBe(false);
    expect(c.links.find((l) => l.url === 'https://site.test/privacy')).toEqual({
      url: 'https://site.test/privacy',
      text: 'Privacy',
      nofollow: true,
    });
    expect(c.links.find((l) => l.url === 'https://site.test/ref/3')?.text).toBe('reference 3');
    expect(new Set(urls).size).toBe(urls.length);
  });

  it('measures link density near 1 on a listing and near 0 on an article', () => {
    const listing = ex.extract(listingPage, 'https://site.test/archive');
    expect(listing.linkDensity).toBeGreaterThan(0.95);
    const plain = `<html><body><article>${Array.from({ length: 6 }, (_, i) => `<p>${sentence(i)}</p>`).join('')}<p><a href="/next">Next</a></p></article></body></html>`;
    const article = ex.extract(plain, 'https://site.test/a');
    expect(article.linkDensity).toBeLessThan(0.05);
    expect(article.linkDensity).toBeGreaterThan(0);
    const mixed = ex.extract(articlePage, 'https://site.test/a');
    expect(mixed.linkDensity).toBeGreaterThan(article.linkDensity);
    expect(mixed.linkDensity).toBeLessThan(listing.linkDensity);
  });

  it('falls back to the body text when the page is only a listing', () => {
    const listing = ex.extract(listingPage, 'https://site.test/archive');
    expect(listing.text).toContain('Post title number 0 about crawling');
    expect(listing.text).toContain('Post title number 59 about crawling');
  });

  it('prefers a substantial <article> or role=main element', () => {
    const html = `<html><body>
      <div class="content"><p>${'Teaser text outside the article that is long enough to be scored. '.repeat(3)}</p></div>
      <div role="main"><h2>Main heading</h2>${Array.from({ length: 4 }, (_, i) => `<p>${sentence(i)}</p>`).join('')}</div>
    </body></html>`;
    const c = ex.extract(html, 'https://site.test/');
    expect(c.text.startsWith('Main heading')).toBe(true);
    expect(c.text).not.toContain('Teaser text');
  });

  it('uses <base href> to resolve links and honours meta robots', () => {
    const html = `<html><head><base href="https://cdn.test/docs/"><meta name="robots" content="NOINDEX, nofollow">
      <link rel="alternate" hreflang="de" href="../de/index.html"></head>
      <body><a href="page.html">Page</a><map><area href="/map/a" alt="Area A"></map><a href="#top">Top</a></body></html>`;
    const c = ex.extract(html, 'https://site.test/x/y');
    expect(c.links).toEqual([
      { url: 'https://cdn.test/de/index.html', text: 'de', nofollow: false },
      { url: 'https://cdn.test/docs/page.html', text: 'Page', nofollow: false },
      { url: 'https://cdn.test/map/a', text: 'Area A', nofollow: false },
    ]);
    expect(c.robots).toEqual({ noindex: true, nofollow: true });
  });

  it('takes the title from og:title, then h1, when <title> is missing', () => {
    expect(ex.extract('<meta property="og:title" content="OG"><h1>Head</h1>', 'https://s.test/').title).toBe('OG');
    expect(ex.extract('<body><header><h1> The  Head </h1></header></body>', 'https://s.test/').title).toBe('The Head');
  });

  it('counts CJK characters four times', () => {
    expect(weightedLength('日本語abc')).toBe(15);
    const cjk = `<html><body><div class="sidebar">${sidebar}</div><div class="entry">${'<p>クローラーは丁寧にリクエストの間隔を空けます。本文だけを残します。</p>'.repeat(4)}</div></body></html>`;
    const c = ex.extract(cjk, 'https://s.test/');
    expect(c.text).toContain('クローラーは丁寧に');
    expect(c.text).not.toContain('Sidebar topic');
  });

  it('keeps whitespace inside <pre>', () => {
    const html = `<article><p>${sentence(1)}</p><p>${sentence(2)}</p><pre>line 1\n    indented</pre></article>`;
    expect(ex.extract(html, 'https://s.test/').text).toContain('line 1\n    indented');
  });
});

describe('ReadabilityContentExtractor', () => {
  it('returns the same shape and drops the sidebar', () => {
    const c = new ReadabilityContentExtractor().extract(articlePage, 'https://site.test/articles/polite');
    expect(c.text).toContain('Paragraph 7 of the article');
    expect(c.text).not.toContain('Sidebar topic');
    expect(c.text.split('\n\n').length).toBeGreaterThanOrEqual(8);
    expect(c.title).toContain('How crawlers stay polite');
    expect(c.links.length).toBe(
      new HtmlContentExtractor().extract(articlePage, 'https://site.test/articles/polite').links.length,
    );
    expect(c.lang).toBe('en-GB');
  });
});

describe('content extractor registry', () => {
  it('builds extractors by name and rejects unknown names with ConfigError', () => {
    expect(Object.keys(contentExtractors)).toEqual(['html', 'readability']);
    expect(createContentExtractor('html').name).toBe('html');
    expect(createContentExtractor('readability').name).toBe('readability');
    expect(() => createContentExtractor('boilerpipe')).toThrow(ConfigError);
    expect(() => createContentExtractor('toString')).toThrow(/unknown content extractor/);
  });
});
