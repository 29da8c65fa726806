import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, CrawlerError, createLogger, type Logger, silentLogger } from '@greenfinger/core';

/** Exit codes: 0 ok, 1 the work failed (or saved nothing), 2 wrong use. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** true when stderr is a terminal: a live progress line is drawn there. */
  tty: boolean;
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  tty: Boolean(process.stderr.isTTY),
};

/** One clear line for an error, and the exit code it deserves. */
export function reportError(io: Io, err: unknown): number {
  if (err instanceof CrawlerError) {
    io.err(`greenfinger: ${err.toLine()}\n`);
    return err instanceof ConfigError || err.code === 'BAD_INPUT' || err.code === 'NOT_FOUND' || err.code === 'CONFIG'
      ? EXIT.usage
      : EXIT.failed;
  }
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EACCES' || e?.code === 'EROFS' || e?.code === 'EPERM') {
    io.err(
      `greenfinger: cannot write ${e.path ?? 'the data directory'} (${e.code}) — make it writable, or choose another with --data DIR\n`,
    );
    return EXIT.failed;
  }
  io.err(`greenfinger: ${err instanceof Error ? err.message : String(err)}\n`);
  return EXIT.failed;
}

/**
 * Logs are pino JSON: a crawl writes them to `system/logs/greenfinger.log` under the data store, so the terminal
 * shows only the progress line; `--verbose` sends them to stderr instead.
 */
export function commandLogger(dataStore: string | undefined, options: { verbose?: boolean; toFile: boolean }): Logger {
  if (options.verbose) return createLogger({ destination: 2 });
  if (!options.toFile) return silentLogger();
  const dir = join(dataStore ?? process.env.GF_DATA_STORE ?? './data', 'system', 'logs');
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new ConfigError(
      '--data',
      `cannot create ${dir} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      'make the data directory writable, or choose another with --data DIR',
    );
  }
  return createLogger({ destination: join(dir, 'greenfinger.log') });
}
