import { ConfigError, type Greenfinger } from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import { type ApiOptions, buildApp } from './app.js';
import { ADD_USER_HINT } from './auth/auth.js';

export interface ServeOptions extends ApiOptions {
  /** @default the GF_SERVER_HOST setting */
  host?: string | undefined;
  /** @default the GF_SERVER_PORT setting */
  port?: number | undefined;
}

export interface RunningServer {
  app: FastifyInstance;
  /** `http://host:port` as it listens. */
  url: string;
  /** Lines worth telling the person who started it (how to sign in, or how to add the first user). */
  notes: string[];
  /**
   * Close gracefully: stop accepting, let requests in flight finish, stop every running job (in-flight pages finish,
   * nothing is published, each can resume), then close the stores.
   */
  close(): Promise<void>;
}

/** Listen with the REST API over a long-lived Greenfinger. */
export async function startServer(gf: Greenfinger, options: ServeOptions = {}): Promise<RunningServer> {
  const app = await buildApp(gf, options);
  const host = options.host ?? gf.settings.serverHost;
  const port = options.port ?? gf.settings.serverPort;
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenError(err, host, port);
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  const notes: string[] = [];
  if ((await gf.users.count()) === 0) notes.push(ADD_USER_HINT);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
      await gf.jobs.close();
      await gf.close();
    })();
    return closing;
  };
  return { app, url, notes, close };
}

/** A port taken or refused, or an address this machine does not have: one line naming the setting and the fix. */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      '--port',
      `${where} is already in use`,
      'choose another with --port N (or GF_SERVER_PORT), or stop what listens there',
      err,
    );
  }
  if (code === 'EACCES') {
    return new ConfigError(
      '--port',
      `this user may not listen on ${where}`,
      'choose a port above 1023 with --port N (or GF_SERVER_PORT)',
      err,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new ConfigError(
      '--host',
      `${host} is not an address of this machine`,
      'use 127.0.0.1, 0.0.0.0 or an address the machine has (GF_SERVER_HOST)',
      err,
    );
  }
  return err;
}
