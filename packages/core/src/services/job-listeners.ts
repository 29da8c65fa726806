import type { Logger } from 'pino';
import type { Job, JobEvent } from './job.js';

interface Subscriber {
  filter: { jobId?: string | undefined; catalogId?: string | undefined };
  listener: (e: JobEvent) => void;
}

/** Who listens to the jobs of a JobService: each told the events its filter lets through; one that throws is logged. */
export class JobListeners {
  readonly #subscribers = new Set<Subscriber>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Add a listener; `ended`, the job it names when that already ended, is told at once. Returns the unsubscribe. */
  add(filter: Subscriber['filter'], listener: (e: JobEvent) => void, ended?: Job): () => void {
    const sub: Subscriber = { filter: { ...filter }, listener };
    this.#subscribers.add(sub);
    if (ended) queueMicrotask(() => this.#tell(sub, { type: 'end', job: ended }));
    return () => {
      this.#subscribers.delete(sub);
    };
  }

  /** Tell every listener whose filter lets the event through. */
  emit(event: JobEvent): void {
    for (const sub of this.#subscribers) {
      const { jobId, catalogId } = sub.filter;
      if (jobId && jobId !== event.job.jobId) continue;
      if (catalogId && catalogId !== event.job.catalogId) continue;
      this.#tell(sub, event);
    }
  }

  #tell(sub: Subscriber, event: JobEvent): void {
    try {
      sub.listener(event);
    } catch (err) {
      this.#log.warn({ err, jobId: event.job.jobId }, 'a job listener threw');
    }
  }
}
