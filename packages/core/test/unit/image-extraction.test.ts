import { HtmlContentExtractor, largestSrcsetCandidate } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const page = `<html><head>
<meta property="og:image" content="/social/card.png"><meta property="og:image:width" content="1200">
<meta name="description" content="Pictures of gardens.">
</head><body><article>
<p>Gardens are best photographed in the early morning light when the dew still sits on every leaf and petal.</p>
<figure><img src="/img/rose-small.jpg" srcset="/img/rose-480.jpg 480w, /img/rose-1200.jpg 1200w, /img/rose-800.jpg 800w" alt="A red rose" width="1200" height="800">
<figcaption>The red rose in the <b>east</b> bed.</figcaption></figure>
<p>A lone tulip stands by the fence. <img src="tulip.jpg" alt="Tulip" width="300" height="400"> It opened on Monday after a week of rain.</p>
<picture><source srcset="/img/tree.avif 1x, /img/tree@2x.avif 2x" type="image/avif"><source srcset="/img/tree-640.webp 640w, /img/tree-1600.webp 1600w"><img src="/img/tree.jpg" alt="Old oak"></picture>
<img src="data:image/gif;base64,R0lGOD" data-src="/img/lazy.jpg" alt="Lazy">
<img src="data:image/gif;base64,R0lGOD" alt="inline only">
<img src="/img/rose-small.jpg" alt="duplicate of the first src is a different url than the srcset pick">
</article></body></html>`;

describe('image references', () => {
  const c = new HtmlContentExtractor().extract(page, 'https://garden.test/posts/spring.html');
  const byAlt = (alt: string) => c.images.find((i) => i.alt === alt);

  it('picks the largest srcset candidate and keeps alt, size and the figcaption', () => {
    expect(byAlt('A red rose')).toEqual({
      url: 'https://garden.test/img/rose-1200.jpg',
      alt: 'A red rose',
      surroundingText: 'The red rose in the east bed.',
      width: 1200,
      height: 800,
      source: 'srcset',
    });
  });

  it('uses the enclosing block text for an image without a caption', () => {
    const tulip = byAlt('Tulip');
    expect(tulip?.url).toBe('https://garden.test/posts/tulip.jpg');
    expect(tulip?.source).toBe('img');
    expect(tulip?.surroundingText).toContain('A lone tulip stands by the fence.');
    expect(tulip?.surroundingText).toContain('It opened on Monday');
  });

  it('reads <picture> sources and the og:image meta', () => {
    expect(byAlt('Old oak')).toMatchObject({ url: 'https://garden.test/img/tree-1600.webp', source: 'picture' });
    expect(c.images.find((i) => i.source === 'og:image')).toEqual({
      url: 'https://garden.test/social/card.png',
      alt: '',
      surroundingText: 'Pictures of gardens.',
      width: 1200,
      height: undefined,
      source: 'og:image',
    });
  });

  it('follows lazy-load attributes, skips data: urls and lists each url once', () => {
    expect(byAlt('Lazy')?.url).toBe('https://garden.test/img/lazy.jpg');
    expect(byAlt('inline only')).toBeUndefined();
    const urls = c.images.map((i) => i.url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls).toContain('https://garden.test/img/rose-small.jpg');
  });

  it('trims surrounding text to about 300 characters', () => {
    const long = `<p>${'word '.repeat(200)}<img src="/a.png" alt="a"></p>`;
    const img = new HtmlContentExtractor().extract(long, 'https://g.test/').images[0]!;
    expect(img.surroundingText.length).toBeLessThanOrEqual(301);
    expect(img.surroundingText.endsWith('…')).toBe(true);
  });

  it('parses srcset descriptors, commas in urls included', () => {
    expect(largestSrcsetCandidate('a.jpg 1x, b.jpg 3x, c.jpg 2x')?.url).toBe('b.jpg');
    expect(largestSrcsetCandidate('/c/w_300,h_200/a.jpg 300w, /c/w_900,h_600/a.jpg 900w')?.url).toBe(
      '/c/w_900,h_600/a.jpg',
    );
    expect(largestSrcsetCandidate('only.jpg')).toEqual({ url: 'only.jpg', w: 0, x: 1 });
    expect(largestSrcsetCandidate('')).toBeNull();
  });
});
