import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The two real static sites served by shared/tools/serve-corpus.sh. */
export type CorpusName = 'python' | 'handbook';

export interface CorpusOptions {
  /** Serve a generated robots.txt (`--robots`). @default false */
  robots?: boolean;
  /** Add `Crawl-delay: S` to the generated robots.txt (`--crawl-delay`). */
  crawlDelaySeconds?: number;
  /** Serve /sitemap.xml of every page (`--sitemap`). @default false */
  sitemap?: boolean;
  /** Hold each request this long in the latency proxy (`--latency`). @default 0 */
  latencyMs?: number;
  /** ± jitter on top of latencyMs (`--jitter`). @default 0 */
  jitterMs?: number;
  /** nginx limit_rate per response, e.g. `100k` (`--rate`). */
  rate?: string;
  /** Server-wide requests per second; excess answered 429 (`--max-rps`). */
  maxRps?: number;
  /** Burst for maxRps (`--burst`). */
  burst?: number;
  /** gzip text responses (`--gzip`). @default false */
  gzip?: boolean;
  /** nginx worker processes (`--workers`). @default 1 */
  workers?: number;
}

/** One line of the nginx access log. */
export interface AccessLogLine {
  /** Epoch milliseconds (nginx `$msec` × 1000) when the request was logged. */
  msec: number;
  status: number;
  bytes: number;
  /** Seconds nginx spent on the request. */
  requestTime: number;
  contentType: string;
  /** nginx connection serial number: equal = the same TCP connection. */
  conn: number;
  /** Request number on that connection (1 = first). */
  req: number;
  method: string;
  path: string;
  userAgent: string;
}

export interface Corpus extends AsyncDisposable {
  readonly name: CorpusName;
  /** Origin, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** What the script printed: the corpus start page. */
  readonly startUrl: string;
  readonly port: number;
  /** `$SERVE_CORPUS_RUNDIR/<name>-<port>`: access.log, error.log, robots.txt, sitemap/, proxy-stats.json. */
  readonly runDir: string;
  /** Requests logged since startCorpus returned (the script's own readiness probe is left out); kept after stop(). */
  accessLog(): AccessLogLine[];
  /**
   * proxy-stats.json (`requests`, `maxInFlight`, `maxConnections`, …) when latency was asked for, else undefined.
   * The proxy rewrites it every 2 s and on exit: read it after stop() for final numbers.
   */
  proxyStats(): Record<string, unknown> | undefined;
  stop(): Promise<void>;
}

const CORPUS_ROOTS: Record<CorpusName, { root: string; pkg: string }> = {
  python: { root: '/usr/share/doc/python3.11/html', pkg: 'python3.11-doc' },
  handbook: { root: '/usr/share/doc/debian-handbook/html', pkg: 'debian-handbook' },
};

/** Where a corpus's files are on disk (what startCorpus serves). */
export function corpusRoot(name: CorpusName): string {
  return CORPUS_ROOTS[name].root;
}

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** Where serve-corpus.sh lives: $GF_SHARED_DIR/tools, else `<repo>/../shared/tools`, else /work/shared/tools. */
export function serveCorpusScript(): string {
  const candidates = [
    process.env.GF_SHARED_DIR && join(resolve(process.env.GF_SHARED_DIR), 'tools', 'serve-corpus.sh'),
    join(repoRoot, '..', 'shared', 'tools', 'serve-corpus.sh'),
    '/work/shared/tools/serve-corpus.sh',
  ].filter((c): c is string => Boolean(c));
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    throw new Error(
      `serve-corpus.sh not found (looked in ${candidates.join(', ')}): set GF_SHARED_DIR to the shared/ folder beside the checkout`,
    );
  }
  return found;
}

/** A port that was free a moment ago (bind port 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile('bash', [script, ...args], { env, timeout: timeoutMs, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const LINE = /^(\d+(?:\.\d+)?) (\d{3}) (\d+) ([\d.]+) "([^"]*)" c=(\d+) r=(\d+) "(\S+) (\S+)(?: [^"]*)?" "([^"]*)"$/;

/** Parse the access log format of serve-corpus.sh; lines that do not match are skipped. */
export function parseAccessLog(text: string): AccessLogLine[] {
  const out: AccessLogLine[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    out.push({
      msec: Math.round(Number(m[1]) * 1000),
      status: Number(m[2]),
      bytes: Number(m[3]),
      requestTime: Number(m[4]),
      contentType: m[5] === '-' ? '' : m[5]!,
      conn: Number(m[6]),
      req: Number(m[7]),
      method: m[8]!,
      path: m[9]!,
      userAgent: m[10] === '-' ? '' : m[10]!,
    });
  }
  return out;
}

function optionArgs(o: CorpusOptions): string[] {
  const a: string[] = [];
  if (o.robots) a.push('--robots');
  if (o.crawlDelaySeconds !== undefined) a.push('--crawl-delay', String(o.crawlDelaySeconds));
  if (o.sitemap) a.push('--sitemap');
  if (o.latencyMs) a.push('--latency', String(o.latencyMs));
  if (o.jitterMs) a.push('--jitter', String(o.jitterMs));
  if (o.rate) a.push('--rate', o.rate);
  if (o.maxRps !== undefined) a.push('--max-rps', String(o.maxRps));
  if (o.burst !== undefined) a.push('--burst', String(o.burst));
  if (o.gzip) a.push('--gzip');
  if (o.workers !== undefined) a.push('--workers', String(o.workers));
  return a;
}

/**
 * Serve a real corpus (Python docs or the Debian handbook) with nginx on a free loopback port, in a run dir of
 * its own under the OS temp dir. Fails (never skips) when nginx or the corpus package is missing: `npm test`
 * installs them. Use with `await using corpus = await startCorpus('python')`.
 */
export async function startCorpus(name: CorpusName, options: CorpusOptions = {}): Promise<Corpus> {
  const { root, pkg } = CORPUS_ROOTS[name];
  const missing = [
    !existsSync('/usr/sbin/nginx') && 'nginx',
    !existsSync('/usr/bin/curl') && 'curl',
    !existsSync(root) && pkg,
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `corpus '${name}' cannot be served: missing ${missing.join(', ')}. Run \`npm test\` (as root it installs them), or: apt-get install -y --no-install-recommends ${missing.join(' ')}`,
    );
  }
  const script = serveCorpusScript();
  const baseDir = mkdtempSync(join(tmpdir(), `gf-corpus-${name}-`));
  const env = { ...process.env, SERVE_CORPUS_RUNDIR: baseDir };
  let lastError = '';
  for (let attempt = 0; attempt < 4; attempt++) {
    const port = await freePort();
    const started = await run(script, ['start', name, String(port), ...optionArgs(options)], env, 120_000);
    if (started.code !== 0) {
      lastError = started.stderr.trim();
      if (/already in use/.test(lastError)) continue;
      break;
    }
    const startUrl = started.stdout.trim().split('\n').pop() ?? '';
    const runDir = join(baseDir, `${name}-${port}`);
    const logFile = join(runDir, 'access.log');
    const readLog = () => (existsSync(logFile) ? parseAccessLog(readFileSync(logFile, 'utf8')) : []);
    const skip = readLog().length;
    const statsFile = join(runDir, 'proxy-stats.json');
    const readStats = () =>
      existsSync(statsFile) ? (JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, unknown>) : undefined;
    let final: { log: AccessLogLine[]; stats: Record<string, unknown> | undefined } | undefined;
    let stopped: Promise<void> | undefined;
    const stop = () => {
      stopped ??= (async () => {
        const res = await run(script, ['stop', name, String(port)], env, 30_000);
        final = { log: readLog().slice(skip), stats: readStats() };
        rmSync(baseDir, { recursive: true, force: true });
        if (res.code !== 0) throw new Error(`serve-corpus.sh stop ${name} ${port} failed: ${res.stderr.trim()}`);
      })();
      return stopped;
    };
    return {
      name,
      url: `http://127.0.0.1:${port}`,
      startUrl,
      port,
      runDir,
      accessLog: () => final?.log ?? readLog().slice(skip),
      proxyStats: () => (final ? final.stats : readStats()),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  }
  rmSync(baseDir, { recursive: true, force: true });
  throw new Error(`serve-corpus.sh could not start '${name}': ${lastError || 'no free port after 4 attempts'}`);
}
