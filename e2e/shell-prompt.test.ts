import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const socket = `gf-shell-${process.pid}`;

function tmux(...args: string[]): string {
  const r = spawnSync('/usr/bin/tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The prompt in a real pseudo-terminal: a tmux pane of 160×50 running `greenfinger shell`. */
class Pane {
  constructor(readonly name: string) {}

  static open(name: string, data: string): Pane {
    // After the prompt exits the pane says how, and stays a while to be read.
    const command = `node ${bin} shell --data ${data}; echo "EXITED:$?"; sleep 60`;
    tmux('new-session', '-d', '-x', '160', '-y', '50', '-s', name, command);
    return new Pane(name);
  }

  screen(): string {
    return tmux('capture-pane', '-p', '-J', '-t', this.name, '-S', '-2000');
  }

  keys(...keys: string[]): void {
    tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Type a line and press Return. */
  line(text: string): void {
    this.keys('-l', text);
    this.keys('Enter');
  }

  /** Wait until the screen matches (after `since` characters of it), bounded; returns the screen. */
  async until(re: RegExp, timeoutMs = 20_000, since = 0): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let text = '';
    while (Date.now() < deadline) {
      text = this.screen();
      if (re.test(text.slice(since))) return text;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${re} in:\n${text.slice(-3000)}`);
  }

  /** Answer the question that matches `question` once it is asked. */
  async answer(question: RegExp, text: string): Promise<void> {
    const at = this.screen().length;
    await this.until(question, 10_000, Math.max(0, at - 400));
    this.line(text);
  }
}

describe('greenfinger shell in a pseudo-terminal (tmux)', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let data: string;
  let origin: string;
  let pane: Pane;

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm run build first`);
    corpus = await startCorpus('python');
    origin = new URL(corpus.url).origin;
    tmp = createTempDir('gf-e2e-shell-');
    data = join(tmp.path, 'data');
    pane = Pane.open('one', data);
    await pane.until(/greenfinger:> $/m);
  });
  afterAll(async () => {
    spawnSync('/usr/bin/tmux', ['-L', socket, 'kill-server'], { timeout: 10_000 });
    await corpus?.stop();
    tmp?.remove();
  });

  it('completes commands and options with Tab; Ctrl-C cancels the line', async () => {
    pane.keys('-l', 'catalog-l');
    pane.keys('Tab');
    await pane.until(/greenfinger:> catalog-list/);
    pane.keys('Enter');
    await pane.until(/no catalogs yet/);
    pane.keys('-l', 'crawl --max-p');
    pane.keys('Tab');
    await pane.until(/greenfinger:> crawl --max-pages/);
    pane.keys('C-c');
    await pane.until(/\^C\ngreenfinger:> $/m);
    pane.keys('Enter');
    const screen = await pane.until(/greenfinger:> \ngreenfinger:> $/m);
    expect(screen).not.toMatch(/needs a catalog/);
  });

  it('creates a catalog through the interview, starts it, watches it live and detaches', async () => {
    pane.line('catalog-save');
    await pane.answer(/url \(identity and boundary\) \[\]: $/m, `${origin}/`);
    await pane.answer(/name \[127\.0\.0\.1:\d+\]: $/m, 'python');
    await pane.answer(/cat \(.*\) \[other\]: $/m, '');
    await pane.answer(/start url \(under the url\) \[.*\]: $/m, `${origin}/index.html`);
    for (const q of [/read the sitemap/, /include/, /exclude/, /content extractor/]) await pane.answer(q, '');
    await pane.answer(/max pages \(≥ 1\) \[10000\]: $/m, 'many');
    await pane.until(/--max-pages must be a whole number ≥ 1, got "many"/);
    await pane.answer(/max pages \(≥ 1\) \[10000\]: $/m, '');
    await pane.answer(/depth/, '');
    await pane.answer(/duration in minutes/, '');
    await pane.answer(/interval between requests/, '20');
    await pane.answer(/retries/, '');
    await pane.answer(/keep pictures/, '');
    await pane.answer(/outputs \(file\+index\+vector/, 'file+index');
    await pane.answer(/max versions/, '');
    await pane.answer(/start now\? \(no, crawl, update, rebuild\) \[no\]: $/m, 'crawl');
    await pane.until(/crawl of "python" version 0 runs in the background \(job /);
    pane.line('status');
    const first = await pane.until(/python · crawl v0 · running · saved \d+ .* pages\/s/);
    const saved = (s: string) => Number(/saved (\d+)/.exec(s.slice(s.lastIndexOf('python · crawl v0')))?.[1]);
    // Redrawn once a second: the counter moves while the crawl runs (waited for, with a deadline).
    let later = pane.screen();
    const moved = (s: string) => saved(s) > saved(first) && /drops: out_of_scope:domain-scope/.test(s);
    for (const until = Date.now() + 15_000; !moved(later) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      later = pane.screen();
    }
    expect(saved(later)).toBeGreaterThan(saved(first));
    expect(later).toMatch(/drops: out_of_scope:domain-scope/);
    pane.line('q');
    await pane.until(/detached; the crawl goes on in the background|python: crawl done/);
    // Attach again and wait for the end (the live view ends with the job).
    pane.line('status');
    await pane.until(/python: crawl done/, 90_000);
  });

  it('searches what the crawl published, and test-url names the acceptor refusing an off-site link', async () => {
    const at = pane.screen().length;
    pane.line('search json dumps');
    const screen = await pane.until(/words: \d+ of/, 20_000, at - 10);
    const hits = screen.slice(at - 10).match(/^\s+\d+\. .*\n\s+(\S+)/gm) ?? [];
    expect(hits.slice(0, 3).some((h) => h.includes('/library/json.html'))).toBe(true);
    pane.line('test-url --url https://www.python.org/ --catalog python');
    await pane.until(/STOP\s+acceptor domain-scope\s+REJECTED_OUT_OF_SCOPE \(domain-scope\): domain python\.org/);
    await pane.until(/outcome: REJECTED_OUT_OF_SCOPE/);
  });

  it('Ctrl-C in the live view of a crawl detaches and leaves it running; exit asks, then pauses it', async () => {
    pane.line('rebuild --name python');
    await pane.until(/rebuild of "python" version 1 runs in the background/);
    pane.line('status');
    await pane.until(/python · rebuild v1 · running/);
    pane.keys('C-c');
    await pane.until(/detached; the crawl goes on in the background/);
    pane.line('exit');
    await pane.answer(/a crawl of "python" runs: pause it and leave\? \(resume continues it\) \[y\/N\] $/m, 'y');
    await pane.until(/paused "python"; continue with: resume --name "python"/, 30_000);
    await pane.until(/EXITED:0/, 30_000);
  });

  it('keeps the history across sessions (commands only, not the answers)', async () => {
    const history = readFileSync(join(data, 'system', 'shell-history'), 'utf8');
    expect(history).toMatch(/^search json dumps$/m);
    expect(history).not.toMatch(/^file\+index$/m);
    const two = Pane.open('two', data);
    await two.until(/greenfinger:> $/m);
    two.keys('Up');
    await two.until(/greenfinger:> exit$/m);
    two.keys('Up', 'Up');
    await two.until(/greenfinger:> rebuild --name python$/m);
    two.keys('C-u');
    two.line('versions --name python');
    await two.until(/1\s+incomplete/);
    two.line('exit');
    await two.until(/EXITED:0/);
  });
});
