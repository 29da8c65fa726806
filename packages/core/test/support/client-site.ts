import { createServer } from 'node:http';
import { closeServer, listen } from './loopback.js';

/**
 * A site of static pages and pages rendered only on the client, on 127.0.0.1 port 0, with a log of every request
 * (path and whether the browser asked: Chromium sends `sec-ch-ua`). A second server stands for "another host": the
 * client pages reference a font, a picture and an analytics beacon on it, and a browser that obeys the catalog never
 * reaches it.
 */
export interface ClientSite extends AsyncDisposable {
  readonly origin: string;
  /** The other host (host:port) the client pages reference. */
  readonly otherHost: string;
  /** Every request: path, `browser` when Chromium made it, when it arrived and when its answer was sent (epoch ms). */
  readonly requests: ClientRequest[];
  /** Requests that reached the other host. */
  readonly otherRequests: string[];
  close(): Promise<void>;
}

/** One request the site answered. */
export interface ClientRequest {
  path: string;
  browser: boolean;
  /** Epoch ms the request arrived. */
  at: number;
  /** Epoch ms its answer was sent (0 until then). */
  end: number;
}

/** What the fixture holds, and what a crawl must find. */
export const clientFacts = {
  /** Static pages: enough text over plain http. */
  staticPaths: ['/', '/static/one', '/static/two', '/static/linked'],
  /** Client pages that render, the word only their rendered text holds, and the detector's reason. */
  rendered: [
    { path: '/client/json', word: 'zephyrquill', reason: 'empty-mount' },
    { path: '/client/wait', word: 'marigoldvortex', reason: 'noscript' },
    { path: '/client/scroll', word: 'saffronlattice', reason: 'empty-mount' },
  ],
  /** The shell that never renders. */
  never: { path: '/client/never', reason: 'empty-mount' },
  /** Infinite scroll: chunk 1 on load, one more per scroll; this word is in chunk 6, past the scroll bound. */
  beyondScrollBound: 'obsidianfarthest',
  /** Only a link the json page's script writes leads to this static page. */
  linkedOnlyByScript: '/static/linked',
} as const;

const words = (seed: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${seed} sentence number ${i} tells the reader something plain and useful.`).join(
    ' ',
  );

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}

export async function startClientSite(): Promise<ClientSite> {
  const requests: ClientRequest[] = [];
  const otherRequests: string[] = [];
  const other = createServer((req, res) => {
    otherRequests.push(req.url ?? '/');
    res.writeHead(204).end();
  });
  const otherPort = await listen(other);
  const otherHost = `127.0.0.1:${otherPort}`;
  const offHost = `<link rel="stylesheet" href="http://${otherHost}/font.css"><img src="http://${otherHost}/pixel.gif" alt="">
<script>fetch('http://${otherHost}/beacon').catch(() => {});</script>`;

  const pages: Record<string, { type: string; body: string }> = {
    '/': {
      type: 'text/html',
      body: page(
        'Home',
        `<h1>Home</h1><p>${words('Welcome home', 5)}</p><ul>
<li><a href="/static/one">One</a></li><li><a href="/static/two">Two</a></li>
<li><a href="/client/json">Json</a></li><li><a href="/client/wait">Wait</a></li>
<li><a href="/client/scroll">Scroll</a></li><li><a href="/client/never">Never</a></li></ul>`,
      ),
    },
    '/static/one': {
      type: 'text/html',
      body: page('One', `<article><h1>One</h1><p>${words('Static one', 6)}</p></article>`),
    },
    '/static/two': {
      type: 'text/html',
      body: page('Two', `<article><h1>Two</h1><p>${words('Static two', 6)}</p></article><div id="app-footer">x</div>`),
    },
    '/static/linked': {
      type: 'text/html',
      body: page('Linked', `<article><h1>Linked</h1><p>${words('Reached through a script link', 6)}</p></article>`),
    },
    // A framework-free script builds the article from JSON.
    '/client/json': {
      type: 'text/html',
      body: page('Json', `<div id="root"></div>${offHost}<script src="/assets/json-app.js"></script>`),
    },
    '/assets/json-app.js': {
      type: 'application/javascript',
      body: `fetch('/data/article.json').then((r) => r.json()).then((a) => {
  const root = document.getElementById('root');
  const h = document.createElement('h1'); h.textContent = a.title; root.appendChild(h);
  for (const t of a.paragraphs) { const p = document.createElement('p'); p.textContent = t; root.appendChild(p); }
  const l = document.createElement('a'); l.href = '/static/linked'; l.textContent = 'more'; root.appendChild(l);
});`,
    },
    '/data/article.json': {
      type: 'application/json',
      body: JSON.stringify({
        title: 'Built from JSON',
        paragraphs: [
          `The zephyrquill is a word only the rendered page holds. ${words('Json', 4)}`,
          words('Json more', 3),
        ],
      }),
    },
    // A click-free wait: nothing on the network, the text arrives on a timer.
    '/client/wait': {
      type: 'text/html',
      body: page(
        'Wait',
        `<noscript>You need to enable JavaScript to read this page.</noscript><div class="content"></div>
<script>setTimeout(() => { document.querySelector('.content').innerHTML =
  '<h1>Waited</h1><p>The marigoldvortex appears after a timer. ${words('Wait', 4)}</p>'; }, 1200);</script>`,
      ),
    },
    // Infinite scroll, bounded by the site at 8 chunks and by the crawler at its scroll count.
    '/client/scroll': {
      type: 'text/html',
      body: page(
        'Scroll',
        `<div id="app"></div><script>
const marks = { 3: 'saffronlattice', 6: '${clientFacts.beyondScrollBound}' };
let n = 0;
function more() {
  if (n >= 8) return;
  n++;
  const s = document.createElement('section');
  s.style.minHeight = '1500px';
  s.textContent = 'Chunk ' + n + ' ' + (marks[n] || '') + ' ' + ${JSON.stringify(words('Scroll', 4))};
  document.getElementById('app').appendChild(s);
}
more();
addEventListener('scroll', () => { if (innerHeight + scrollY >= document.body.scrollHeight - 10) setTimeout(more, 100); });
</script>`,
      ),
    },
    // A shell that never renders: its script does nothing.
    '/client/never': {
      type: 'text/html',
      body: page('Never', `<div id="root"></div><script>/* the bundle failed to load */</script>`),
    },
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const logged: ClientRequest = { path, browser: req.headers['sec-ch-ua'] !== undefined, at: Date.now(), end: 0 };
    requests.push(logged);
    res.on('finish', () => {
      logged.end = Date.now();
    });
    const p = pages[path];
    if (!p) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': `${p.type}; charset=utf-8` }).end(p.body);
  });
  const port = await listen(server);
  const close = async () => {
    await closeServer(server);
    await closeServer(other);
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    otherHost,
    requests,
    otherRequests,
    close,
    [Symbol.asyncDispose]: close,
  };
}
