/**
 * Renders pages with the BrowserExtractor, closes it, then reports the processes left: run as PID 1 of a new PID
 * namespace (`unshare --pid --fork --mount-proc`) by test/integration/browser-pid1.test.ts. Prints one JSON line.
 * HOLD=1: print `{ ready }` once the pages are rendered, then wait to be killed with the browser still open.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { BrowserExtractor, HttpExtractor, loadSettings } from '@greenfinger/core/internal';
import { closeServer, listen } from './loopback.js';

function processes(): { pid: number; state: string; comm: string }[] {
  const out: { pid: number; state: string; comm: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
      out.push({ pid: Number(d), state, comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // gone
    }
  }
  return out;
}

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html><html><body><div id="root"></div><script>document.getElementById('root').textContent = ${JSON.stringify('Words a reader reads. '.repeat(20))};</script></body></html>`,
  );
});
const origin = `http://127.0.0.1:${await listen(server)}`;
const browser = new BrowserExtractor(new HttpExtractor({ settings: loadSettings({}) }), {
  idleTimeoutMs: 200,
  recycleAfter: Number(process.env.RECYCLE ?? 2),
});
let rendered = 0;
for (let i = 0; i < Number(process.env.PAGES ?? 4); i++) {
  const r = await browser.fetch(`${origin}/p${i}`);
  if (r.rendering?.outcome === 'rendered') rendered++;
}
const during = processes().length;
if (process.env.HOLD) {
  // Stands for a crawler killed with -9 while its browser runs: the test kills this process now.
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, during })}\n`);
  await new Promise(() => undefined);
}
await browser.close();
await closeServer(server);
await new Promise((r) => setTimeout(r, 1000));
const left = processes();
process.stdout.write(
  `${JSON.stringify({
    pid: process.pid,
    rendered,
    launched: browser.launched,
    during,
    zombies: left.filter((p) => p.state === 'Z').length,
    alive: left.filter((p) => p.state !== 'Z').map((p) => `${p.pid} ${p.comm}`),
  })}\n`,
);
process.exit(0);
