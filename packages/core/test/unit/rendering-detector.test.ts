import { describe, expect, it } from 'vitest';
import { createRenderingDetector, visibleTextChars } from '../../src/fetch/rendering-detector.js';

const article = `<p>${'A paragraph a reader would read, with enough words in it to count as an article. '.repeat(6)}</p>`;
const page = (body: string, head = '') =>
  `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;
const bundle = `<script src="/app.js"></script><script>${'var x=1;'.repeat(400)}</script>`;

describe('RenderingDetector', () => {
  const detector = createRenderingDetector();

  it('renders an empty SPA mount with little text', () => {
    for (const mount of [
      '<div id="root"></div>',
      '<div id="app">  <!-- filled by app.js --> </div>',
      "<main id='__next'></main>",
      '<div data-reactroot></div>',
      '<div ng-app="shop"></div>',
    ]) {
      expect(detector.decide(page(`<header>Shop</header>${mount}<script src="/a.js"></script>`)), mount).toMatchObject({
        render: true,
        reason: 'empty-mount',
      });
    }
    expect(detector.decide(`<html ng-app="x"><body><div ng-view></div></body></html>`)).toMatchObject({
      render: true,
      reason: 'empty-mount',
    });
  });

  it('renders a page whose noscript asks for JavaScript', () => {
    const html = page('<noscript>You need to enable JavaScript to run this app.</noscript><div class="x"></div>');
    expect(detector.decide(html)).toMatchObject({ render: true, reason: 'noscript' });
    expect(detector.decide(page('<noscript><p>Please turn on <b>JavaScript</b></p></noscript>'))).toMatchObject({
      reason: 'noscript',
    });
  });

  it('renders a page that is mostly scripts', () => {
    expect(detector.decide(page(`<div class="shell">Loading…</div>${bundle}`))).toMatchObject({
      render: true,
      reason: 'mostly-scripts',
    });
  });

  it('never renders a page with enough text, whatever else it holds', () => {
    const hydrated = page(`<div id="root">${article}</div>${bundle}<noscript>Enable JavaScript</noscript>`);
    expect(detector.decide(hydrated)).toMatchObject({ render: false });
    expect(detector.decide(page(`<div id="app"></div>${article}`))).toMatchObject({ render: false });
  });

  it('does not render a short static page without shell signs', () => {
    expect(detector.decide(page('<h1>Contact</h1><p>Call us.</p>'))).toMatchObject({ render: false });
    expect(detector.decide(page('<div id="root-note">x</div>'))).toMatchObject({ render: false });
    expect(detector.decide(page('<noscript><img src="/pixel.gif"></noscript><p>Short.</p>'))).toMatchObject({
      render: false,
    });
    expect(detector.decide('')).toMatchObject({ render: false, textChars: 0 });
  });

  it('reads its thresholds from the options', () => {
    const shortStatic = page(`<div id="root"></div><p>${'word '.repeat(20)}</p>`);
    expect(detector.decide(shortStatic).render).toBe(true);
    expect(createRenderingDetector({ minTextChars: 50 }).decide(shortStatic).render).toBe(false);
    const scripty = page(`<p>Hi</p>${bundle}`);
    expect(createRenderingDetector({ maxScriptShare: 0.99 }).decide(scripty).render).toBe(false);
    expect(() => createRenderingDetector({ minTextChars: -1 })).toThrow(TypeError);
    expect(() => createRenderingDetector({ maxScriptShare: 0 })).toThrow(TypeError);
  });

  it('counts visible text only', () => {
    expect(
      visibleTextChars(
        page(
          '<h1>Ab</h1><script>long code here</script><style>p{}</style><!-- c --><p>c&amp;d</p>',
          '<title>no</title>',
        ),
      ),
    ).toBe('Ab cxd'.length);
  });
});
