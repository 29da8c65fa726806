import type { Catalog, JobEvent, JobService } from '@greenfinger/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Open event streams, ended when the server closes (a hijacked reply would keep it open). */
const open = new Set<() => void>();

export function endAllStreams(): void {
  for (const end of [...open]) end();
}

/**
 * `text/event-stream` of one catalog's job: `progress` about once a second with the job (counters, queued, pages/s),
 * then one `end` with the job and its report, and the stream closes. When nothing runs, one `idle` event and it
 * closes. A comment line every 15 s keeps proxies from timing the stream out.
 */
export function streamJobEvents(req: FastifyRequest, reply: FastifyReply, jobs: JobService, catalog: Catalog): void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    connection: 'keep-alive',
  });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const job = jobs.running(catalog.id);
  if (!job) {
    send('idle', { catalogId: catalog.id, catalog: catalog.name, running: false });
    res.end();
    return;
  }
  send('progress', job);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(ping);
    open.delete(end);
    res.end();
  };
  const unsubscribe = jobs.subscribe({ jobId: job.jobId }, (e: JobEvent) => {
    send(e.type, e.job);
    if (e.type === 'end') end();
  });
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  ping.unref();
  open.add(end);
  req.raw.on('close', end);
  // The job may have ended between the look and the subscription.
  const now = jobs.get(job.jobId);
  if (now?.endedAt) {
    send('end', now);
    end();
  }
}
