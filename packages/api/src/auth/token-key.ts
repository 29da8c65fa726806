import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@greenfinger/core';
import { randomKey } from './token.js';

/** Where the random signing key is kept when GF_TOKEN_SECRET is unset. */
export function tokenKeyFile(systemDir: string): string {
  return join(systemDir, 'token-secret');
}

/**
 * The key tokens are signed with: GF_TOKEN_SECRET when set, else the key file under system/ (created on first use,
 * readable by this user only), so a restart keeps sessions.
 */
export function loadTokenKey(systemDir: string, secret: string | undefined): string {
  if (secret) return secret;
  const file = tokenKeyFile(systemDir);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= 32) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw keyFileError(file, err);
  }
  const key = randomKey();
  try {
    mkdirSync(systemDir, { recursive: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch (err) {
    throw keyFileError(file, err);
  }
  return key;
}

function keyFileError(file: string, cause: unknown): ConfigError {
  return new ConfigError(
    'GF_TOKEN_SECRET',
    `cannot read or write the token key ${file} (${cause instanceof Error ? cause.message : String(cause)})`,
    'set GF_TOKEN_SECRET to 32+ random characters, or make the data root writable',
    cause,
  );
}
