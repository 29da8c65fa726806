import pino, { type Logger } from 'pino';
import { envLogLevel } from './config.js';

export type { Logger };

/**
 * One pino logger; components take `logger.child({ component })`. JSON lines on stderr. The level is
 * `options.level`, else GF_LOG_LEVEL (config.ts), else `info`.
 */
export function createLogger(options: { level?: string; destination?: number | string } = {}): Logger {
  const level = options.level ?? envLogLevel() ?? 'info';
  const dest = pino.destination({ dest: options.destination ?? 2, sync: false });
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: ['password', '*.password', 'databaseUrl', 'tokenSecret', '*.tokenSecret', 'req.headers.authorization'],
    },
    dest,
  );
}

/** A logger that drops everything (tests, library use without logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
