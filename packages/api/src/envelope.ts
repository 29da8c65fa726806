import { reportOf } from '@greenfinger/core';
import type { FastifyError, FastifyInstance } from 'fastify';

/** Every answer: `{success, message, data}`. */
export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export function ok<T>(data: T, message = 'ok'): Envelope<T> {
  return { success: true, message, data };
}

export function failure(message: string): Envelope<null> {
  return { success: false, message, data: null };
}

/** An error a route throws to answer with a status of its own (401, 403, 429, …) and one line. */
export class HttpRefusal extends Error {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  constructor(statusCode: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpRefusal';
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

/**
 * Errors answer in the envelope with core's error table (a CrawlerError by its code); a schema error names the field
 * (`body/settings/depth must be integer`); a 5xx is logged with its stack, and its line is all the client sees.
 */
export function installErrorEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | HttpRefusal, req, reply) => {
    if (err instanceof HttpRefusal) {
      void reply.status(err.statusCode).headers(err.headers).send(failure(err.message));
      return;
    }
    const validation = (err as FastifyError).validation;
    if (validation) {
      void reply.status(400).send(failure(validationLine(err as FastifyError)));
      return;
    }
    const report = reportOf(err);
    if (report.http >= 500) req.log.error({ err }, 'request failed');
    void reply.status(report.http).send(failure(withoutPaths(report.line)));
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send(failure(`no endpoint ${req.method} ${req.url.split('?')[0]} — see /v2/openapi.json`));
  });
}

/**
 * A line with every absolute file path cut to its last part (`on /srv/gf/system/greenfinger.db failed` → `on
 * greenfinger.db failed`): where the server keeps its files is nobody's business over HTTP. A url's path (after a
 * host) is left alone.
 */
export function withoutPaths(line: string): string {
  return line.replace(/(?<![\w:/.~-])(?:\/[^\s/"'`<>|]+){2,}/g, (path) => path.slice(path.lastIndexOf('/') + 1));
}

/** `querystring/size must match pattern "^[0-9]+$"` → one line naming the field, with the fix. */
function validationLine(err: FastifyError): string {
  const first = err.validation?.[0];
  const where = err.validationContext ?? 'request';
  if (!first) return err.message;
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'additionalProperties') {
    const field = [path, String(params.additionalProperty)].filter(Boolean).join('.');
    return `${where}: unknown field "${field}" — remove it (see /v2/openapi.json for the fields this endpoint takes)`;
  }
  if (first.keyword === 'required') {
    const field = [path, String(params.missingProperty)].filter(Boolean).join('.');
    return `${where}: "${field}" is required`;
  }
  return `${where}${path ? `.${path}` : ''} ${first.message ?? 'is not valid'}`;
}
