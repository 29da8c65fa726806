import { CrawlerError } from '../errors.js';

/**
 * Where an export's bytes go: a file, an HTTP response, a zip entry. Each write waits for the stream to drain, so an
 * export holds at most one page (and the stream's buffer) in memory however large the collection; a stream that
 * closes first (a client gone) ends the export with an error instead of a wait for ever.
 */
export class ByteSink {
  readonly #out: NodeJS.WritableStream & { destroyed?: boolean; writableNeedDrain?: boolean };
  /** Bytes written so far. */
  bytes = 0;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  /** Write one chunk, then wait until the stream takes more. */
  async write(chunk: Uint8Array | string): Promise<void> {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (bytes.length === 0) return;
    if (this.#out.destroyed) throw closed();
    this.bytes += bytes.length;
    if (!this.#out.write(bytes)) await drained(this.#out);
  }

  /** End the stream and wait until it has flushed. */
  async end(): Promise<void> {
    if (this.#out.destroyed) throw closed();
    await new Promise<void>((resolve, reject) => {
      this.#out.once('error', reject);
      this.#out.end(() => resolve());
    });
  }
}

function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: unknown) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(closed());
    const onError = (err: unknown) => done(err);
    out.once('drain', onDrain);
    out.once('close', onClose);
    out.once('error', onError);
  });
}

function closed(): CrawlerError {
  return new CrawlerError('STORAGE', 'the export was closed by its reader before it ended', {
    fix: 'export again; keep the connection (or the file) open until the last byte',
  });
}
