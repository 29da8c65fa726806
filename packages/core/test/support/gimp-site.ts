import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

/** The GIMP help in English (Debian package `gimp-help-en`): 691 pages, about 2,000 pictures with alt texts. */
export const GIMP_HELP_ROOT = '/usr/share/gimp/2.0/help/en';

/** Why the GIMP help cannot be served here, or undefined when it can (tests skip with this reason). */
export function gimpHelpMissing(): string | undefined {
  return existsSync(join(GIMP_HELP_ROOT, 'index.html'))
    ? undefined
    : `the GIMP help is not installed (${GIMP_HELP_ROOT}): apt-get install -y --no-install-recommends gimp-help-en`;
}

export interface GimpSite extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
};

/**
 * Serves the GIMP help folder on a loopback port with node:http (GET and HEAD of its files, 404 otherwise; `/`
 * is `index.html`). Use with `await using site = await startGimpSite()`.
 */
export async function startGimpSite(root = GIMP_HELP_ROOT): Promise<GimpSite> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const size = statSync(file).size;
    res.writeHead(200, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': size,
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
    return closing;
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
