import type { ComponentFactory } from '../compose/component-factory.js';
import { fetchTimings } from '../runs/fetch-timings.js';
import { MetricsText } from '../runs/metrics-format.js';
import type { Job, JobService, JobState } from './job-service.js';

export { PROMETHEUS_CONTENT_TYPE } from '../runs/metrics-format.js';

const JOB_STATES: readonly JobState[] = ['queued', 'running', 'done', 'failed', 'stopped'];

/**
 * The metrics of this node in the Prometheus text format 0.0.4 (docs/metrics.md): per catalog the counters of its
 * running crawl job, or of its last one once it ended, the fetch-latency histogram, frontier sizes, output failures
 * per channel, the DNS cache, jobs by state, and the process's memory.
 */
export class MetricsService {
  readonly #f: ComponentFactory;
  readonly #jobs: JobService;

  constructor(factory: ComponentFactory, jobs: JobService) {
    this.#f = factory;
    this.#jobs = jobs;
  }

  /** One scrape: the whole exposition text, ending in a newline. */
  async render(): Promise<string> {
    const node = this.#f.settings.node;
    const m = new MetricsText();
    const crawls = this.#jobs.latestCrawls().filter((j) => j.counters !== null);

    m.family('greenfinger_urls_dispatched_total', 'counter', 'Urls taken from the frontier by the latest crawl job.');
    m.family('greenfinger_urls_handled_total', 'counter', 'Urls that reached their outcome in the latest crawl job.');
    m.family(
      'greenfinger_urls_total',
      'counter',
      'Urls handled by the latest crawl job, by outcome (SAVED, or the REJECTED_* key of the run report).',
    );
    m.family(
      'greenfinger_pages_indexed_total',
      'counter',
      'Pages written to the full-text index by the latest crawl job.',
    );
    m.family(
      'greenfinger_pages_vectored_total',
      'counter',
      'Pages embedded into the vector store by the latest crawl job.',
    );
    m.family('greenfinger_pictures_total', 'counter', 'Pictures kept by the latest crawl job.');
    m.family('greenfinger_pictures_rejected_total', 'counter', 'Pictures fetched and not kept, by outcome.');
    for (const job of crawls) {
      const c = job.counters;
      if (!c) continue;
      const labels = { catalog: job.catalog, node };
      m.sample('greenfinger_urls_dispatched_total', labels, c.dispatched);
      m.sample('greenfinger_urls_handled_total', labels, c.handled);
      m.sample('greenfinger_urls_total', { ...labels, outcome: 'SAVED' }, c.saved);
      for (const [outcome, n] of sorted(c.rejected)) m.sample('greenfinger_urls_total', { ...labels, outcome }, n);
      m.sample('greenfinger_pages_indexed_total', labels, c.indexed);
      m.sample('greenfinger_pages_vectored_total', labels, c.vectored);
      m.sample('greenfinger_pictures_total', labels, c.images);
      for (const [outcome, n] of sorted(c.pictures.rejected)) {
        m.sample('greenfinger_pictures_rejected_total', { ...labels, outcome }, n);
      }
    }

    m.family(
      'greenfinger_fetch_duration_seconds',
      'histogram',
      'Page fetch duration (each attempt), since this process started.',
    );
    for (const [catalog, h] of fetchTimings(this.#f)
      .entries()
      .sort(([a], [b]) => a.localeCompare(b))) {
      m.histogram('greenfinger_fetch_duration_seconds', { catalog }, h.snapshot());
    }

    const dns = this.#f.dnsCache().stats();
    m.family(
      'greenfinger_dns_lookups_total',
      'counter',
      'Host name lookups of the fetches, by how the DNS cache answered: hit, negative (a kept failure), shared (joined a lookup under way) or miss (asked the resolver).',
    );
    m.sample('greenfinger_dns_lookups_total', { node, result: 'hit' }, dns.hits);
    m.sample('greenfinger_dns_lookups_total', { node, result: 'negative' }, dns.negativeHits);
    m.sample('greenfinger_dns_lookups_total', { node, result: 'shared' }, dns.shared);
    m.sample('greenfinger_dns_lookups_total', { node, result: 'miss' }, dns.misses);
    m.family('greenfinger_dns_failures_total', 'counter', 'Resolver answers that were failures (kept briefly).');
    m.sample('greenfinger_dns_failures_total', { node }, dns.failures);
    m.family('greenfinger_dns_cache_entries', 'gauge', 'Host names the DNS cache holds (answers and failures).');
    m.sample('greenfinger_dns_cache_entries', { node }, dns.entries);

    const running = crawls.filter((j) => j.state === 'running' || j.state === 'queued');
    m.family('greenfinger_frontier_queued', 'gauge', 'Urls waiting on the frontier of a running crawl.');
    m.family('greenfinger_frontier_in_flight', 'gauge', 'Pages being handled now by a running crawl.');
    for (const job of running) {
      const labels = { catalog: job.catalog, node };
      m.sample('greenfinger_frontier_queued', labels, job.queued);
      m.sample('greenfinger_frontier_in_flight', labels, job.active);
    }

    m.family('greenfinger_output_writes_total', 'counter', 'Pages an output channel made durable, latest crawl job.');
    m.family('greenfinger_output_failures_total', 'counter', 'Writes an output channel failed, latest crawl job.');
    for (const job of crawls) {
      for (const [channel, s] of sorted(job.outputs ?? {})) {
        const labels = { catalog: job.catalog, node, channel };
        m.sample('greenfinger_output_writes_total', labels, s.written);
        m.sample('greenfinger_output_failures_total', labels, s.failed);
      }
    }

    m.family('greenfinger_jobs', 'gauge', 'Jobs this process knows (running and recently ended), by state.');
    const byState = countStates(this.#jobs.list());
    for (const state of JOB_STATES) m.sample('greenfinger_jobs', { node, state }, byState[state]);

    const mem = process.memoryUsage();
    m.family('greenfinger_process_resident_memory_bytes', 'gauge', 'Resident set size of this process.');
    m.sample('greenfinger_process_resident_memory_bytes', { node }, mem.rss);
    m.family('greenfinger_process_heap_used_bytes', 'gauge', 'V8 heap in use.');
    m.sample('greenfinger_process_heap_used_bytes', { node }, mem.heapUsed);
    m.family('greenfinger_process_heap_total_bytes', 'gauge', 'V8 heap reserved.');
    m.sample('greenfinger_process_heap_total_bytes', { node }, mem.heapTotal);
    return m.toString();
  }
}

function sorted<T>(record: Record<string, T>): Array<[string, T]> {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}

function countStates(jobs: Job[]): Record<JobState, number> {
  const out: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0, stopped: 0 };
  for (const j of jobs) out[j.state]++;
  return out;
}
