import type { ServerResponse } from 'node:http';
import type { Catalog, JobEvent, JobService } from '@greenfinger/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How often an open stream checks that its token still holds. */
export const RECHECK_MS = 1000;

/** Open event streams, ended when the server closes (a hijacked reply would keep it open). */
const open = new Set<() => void>();

/** End every open event stream (the app's onClose). */
export function endAllStreams(): void {
  for (const end of [...open]) end();
}

/** An event stream's writer: one `event:` with its JSON `data:`. */
export type SendEvent = (event: string, data: unknown) => void;

/** Take the reply over as a `text/event-stream`: its headers written, and the function that sends an event. */
export function openEventStream(reply: FastifyReply): { res: ServerResponse; send: SendEvent } {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    connection: 'keep-alive',
  });
  return { res, send: (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) };
}

/**
 * Keep an open stream until it ends: a comment line every 15 s keeps proxies from timing it out; the token is checked
 * again every {@link RECHECK_MS} (once it no longer holds, one `signed-out` event and the stream ends); it ends when
 * the client goes or the server closes. Returns the stream's `end` (once only: `onEnd`, then the response ends).
 */
export function keepStreamOpen(
  req: FastifyRequest,
  res: ServerResponse,
  send: SendEvent,
  stillSignedIn: () => Promise<boolean>,
  onEnd: () => void,
): () => void {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
    clearInterval(ping);
    clearInterval(recheck);
    open.delete(end);
    res.end();
  };
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  ping.unref();
  let checking = false;
  const recheck = setInterval(() => {
    if (checking || ended) return;
    checking = true;
    void stillSignedIn()
      .catch(() => false)
      .then((valid) => {
        checking = false;
        if (valid || ended) return;
        send('signed-out', { reason: 'this token no longer holds: sign in again' });
        end();
      });
  }, RECHECK_MS);
  recheck.unref();
  open.add(end);
  req.raw.on('close', end);
  return end;
}

/**
 * `text/event-stream` of one catalog's job: `progress` about once a second with the job (counters, queued, pages/s),
 * then one `end` with the job and its report, and the stream closes. When nothing runs, one `idle` event and it
 * closes. A comment line every 15 s keeps proxies from timing the stream out. The token is checked again every
 * {@link RECHECK_MS}: once it is signed out (or its user's password changed, or the user deleted), one `signed-out`
 * event and the stream closes.
 */
export function streamJobEvents(
  req: FastifyRequest,
  reply: FastifyReply,
  jobs: JobService,
  catalog: Catalog,
  stillSignedIn: () => Promise<boolean>,
): void {
  const { res, send } = openEventStream(reply);
  const job = jobs.running(catalog.id);
  if (!job) {
    send('idle', { catalogId: catalog.id, catalog: catalog.name, running: false });
    res.end();
    return;
  }
  send('progress', job);
  const unsubscribe = jobs.subscribe({ jobId: job.jobId }, (e: JobEvent) => {
    send(e.type, e.job);
    if (e.type === 'end') end();
  });
  const end = keepStreamOpen(req, res, send, stillSignedIn, () => unsubscribe());
  // The job may have ended between the look and the subscription.
  const now = jobs.get(job.jobId);
  if (now?.endedAt) {
    send('end', now);
    end();
  }
}
