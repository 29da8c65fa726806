import { describe, expect, it } from 'vitest';
import { parseLlmsTxt, twinUrlOf } from '../../src/engine/flow/llms-txt.js';

describe('llms.txt and Markdown twins', () => {
  it('a twin is the url with .md appended, index.html.md for a folder, without query or fragment', () => {
    expect(twinUrlOf('http://h/docs/json.html')).toBe('http://h/docs/json.html.md');
    expect(twinUrlOf('http://h/docs/')).toBe('http://h/docs/index.html.md');
    expect(twinUrlOf('http://h/')).toBe('http://h/index.html.md');
    expect(twinUrlOf('http://h/guide/start?x=1#top')).toBe('http://h/guide/start.md');
  });

  it('maps each listed .md link on its own host to the page it stands for', () => {
    const text = [
      '# Project',
      '> Summary',
      '## Docs',
      '- [Home](/index.html.md): start here',
      '- [JSON](library/json.html.md "the json module"): encoder',
      '- [Guide](<https://h/guide/start.md>)',
      '- [Html only](/about.html)',
      '- [Elsewhere](https://other/x.md)',
      '- [Broken](http://[::1/x.md)',
    ].join('\n');
    const { twins, url } = parseLlmsTxt(text, 'https://h/llms.txt');
    expect(url).toBe('https://h/llms.txt');
    expect(Object.fromEntries(twins)).toEqual({
      'https://h/index.html': 'https://h/index.html.md',
      'https://h/': 'https://h/index.html.md',
      'https://h/library/json.html': 'https://h/library/json.html.md',
      'https://h/guide/start': 'https://h/guide/start.md',
    });
  });

  it('an llms.txt with no .md link of its host names no twin', () => {
    expect(parseLlmsTxt('- [A](/a.html)\n- [B](https://x/b.md)\n', 'https://h/llms.txt').twins.size).toBe(0);
    expect(parseLlmsTxt('', 'https://h/llms.txt').twins.size).toBe(0);
  });
});
