import { join } from 'node:path';
import {
  ConfigError,
  createFileLogger,
  createLogger,
  EXIT,
  envDataStore,
  type Logger,
  makeDirs,
  reportOf,
  silentLogger,
  unknownEnv,
} from '@greenfinger/core/internal';

/** Exit codes: 0 ok, 1 the work failed (or saved nothing), 2 wrong use, 130 interrupted (core's error table). */
export { EXIT };

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

/** One clear line for an error, and the exit code it deserves (core's error table: `reportOf`). */
export function reportError(io: Io, err: unknown): number {
  const report = reportOf(err);
  io.err(`greenfinger: ${report.line}\n`);
  return report.exit;
}

/**
 * Logs are pino JSON: a crawl writes them to `system/logs/greenfinger.log` under the data store, so the terminal
 * shows only the progress line; `--verbose` sends them to stderr instead. GF_* variables that name no setting are
 * logged once as a warning.
 */
export function commandLogger(dataStore: string | undefined, options: { verbose?: boolean; toFile: boolean }): Logger {
  const log = openLogger(dataStore, options);
  const unknown = unknownEnv();
  if (unknown.length > 0) {
    log.warn({ variables: unknown }, `unknown GF_* variables ignored: ${unknown.join(', ')} (see .env.example)`);
  }
  return log;
}

function openLogger(dataStore: string | undefined, options: { verbose?: boolean; toFile: boolean }): Logger {
  if (options.verbose) return createLogger({ destination: 2 });
  if (!options.toFile) return silentLogger();
  const dir = join(dataStore ?? envDataStore(), 'system', 'logs');
  try {
    makeDirs(dir);
  } catch (err) {
    throw new ConfigError(
      '--data',
      `cannot create ${dir} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      'make the data directory writable, or choose another with --data DIR',
    );
  }
  const file = join(dir, 'greenfinger.log');
  try {
    // Not pino's file destination: on a disk that fills, its exit flush retries for ever (see LogFile).
    return createFileLogger(file);
  } catch (err) {
    throw new ConfigError(
      '--data',
      `cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      'make the data directory writable, or choose another with --data DIR',
    );
  }
}
