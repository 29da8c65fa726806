import type { Catalog, Greenfinger, Job, JobEvent } from '@greenfinger/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { keepStreamOpen, openEventStream } from './sse.js';

/** Whether a job's run published (a crawl verb's report says so; a replay never records a change set). */
function published(job: Job): boolean {
  const report = job.report as { ending?: { published?: boolean } } | null;
  return job.state === 'done' && report?.ending?.published === true;
}

/**
 * `text/event-stream` of one catalog's change log, live: while a crawl job of the catalog runs, one `running` event
 * with the job, then — once it ends — one `changes` event with the change set it recorded (as `GET …/changes`
 * answers), or one `end` event with the job when it published nothing; when nothing runs, the latest change set at
 * once (`changes`, or `idle` when no run has published yet). Then the stream closes: a client that follows a
 * catalog opens it again. A comment line every 15 s keeps proxies from timing it out, and the token is checked again
 * every second (`signed-out`, then it closes), as the job stream does.
 */
export async function streamChangeEvents(
  req: FastifyRequest,
  reply: FastifyReply,
  gf: Greenfinger,
  catalog: Catalog,
  stillSignedIn: () => Promise<boolean>,
): Promise<void> {
  const { res, send } = openEventStream(reply);
  const latest = async () => {
    try {
      send('changes', await gf.changes.changes({ id: catalog.id }));
    } catch {
      send('idle', { catalogId: catalog.id, catalog: catalog.name, changes: false });
    }
  };
  const job = gf.jobs.running(catalog.id);
  if (!job) {
    await latest();
    res.end();
    return;
  }
  send('running', job);
  let finished = false;
  const finish = async (done: Job) => {
    if (finished) return;
    finished = true;
    if (published(done)) await latest();
    else send('end', done);
    end();
  };
  const unsubscribe = gf.jobs.subscribe({ jobId: job.jobId }, (e: JobEvent) => {
    if (e.type === 'end') void finish(e.job);
  });
  const end = keepStreamOpen(req, res, send, stillSignedIn, () => unsubscribe());
  // The job may have ended between the look and the subscription.
  const now = gf.jobs.get(job.jobId);
  if (now?.endedAt) await finish(now);
}
