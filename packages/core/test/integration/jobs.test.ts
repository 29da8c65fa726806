import {
  type CatalogSettings,
  CrawlerError,
  Greenfinger,
  type GreenfingerComponents,
  type Job,
  type JobEvent,
  LevelFrontier,
  type RunReport,
} from '@greenfinger/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureSite, fixtureFacts, startFixtureSite } from '../support/fixture-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Index only: no embedding model to load, so every run is short. */
const fast: Partial<CatalogSettings> = { intervalMs: 0, threads: 2, hostConcurrency: 2, outputs: ['file', 'index'] };
const page = (title: string, body: string) =>
  `<html><head><title>${title}</title></head><body><main><p>${body}</p></main></body></html>`;

/** Jobs: crawls in the background of one long-lived Greenfinger, as the REST API server runs them. */
describe('jobs', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let gf: Greenfinger;
  const open = (components?: GreenfingerComponents) =>
    Greenfinger.open({ settings: { dataStore: tmp.path, workers: 1 }, ...(components ? { components } : {}) });

  beforeEach(async () => {
    // Every answer waits a little, so a crawl of the fixture site lasts a few seconds: long enough to act on it.
    site = await startFixtureSite({ slowDelayMs: 300, latencyMs: 60 });
    tmp = createTempDir('gf-jobs-');
    gf = await open();
  });
  afterEach(async () => {
    await gf.close();
    await site.close();
    tmp.remove();
  });

  /** Events of one job until its end, bounded in time. */
  const watch = (jobId: string, timeoutMs = 30_000) => {
    const events: JobEvent[] = [];
    let off = () => {};
    const ended = new Promise<Job>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`job ${jobId} did not end within ${timeoutMs} ms`)), timeoutMs);
      off = gf.jobs.subscribe({ jobId }, (e) => {
        events.push(e);
        if (e.type === 'end') {
          clearTimeout(timer);
          off();
          resolve(e.job);
        }
      });
    });
    return { events, ended };
  };
  const firstProgress = (jobId: string, timeoutMs = 15_000) =>
    new Promise<Job>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no progress')), timeoutMs);
      const off = gf.jobs.subscribe({ jobId }, (e) => {
        clearTimeout(timer);
        off();
        resolve(e.job);
      });
    });
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      return err instanceof CrawlerError ? { code: err.code, fix: err.fix } : { code: String(err), fix: undefined };
    }
    return { code: 'resolved', fix: undefined };
  };

  it('start → progress → end with the report; a second start is CONFLICT; metrics match the report; replay', async () => {
    const job = await gf.jobs.start({ url: site.origin, settings: fast });
    expect(job.state).toBe('running');
    expect(job.version).toBe(0);
    expect(job.jobId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const { events, ended } = watch(job.jobId);
    const again = await codeOf(gf.jobs.start({ id: job.catalogId }));
    expect(again.code).toBe('CONFLICT');
    expect(again.fix).toContain(`job ${job.jobId}`);
    expect(gf.jobs.running(job.catalogId)?.jobId).toBe(job.jobId);

    const end = await ended;
    expect(end.state).toBe('done');
    const report = end.report as RunReport;
    expect(report.ending.published).toBe(true);
    expect(report.produced.saved).toBe(fixtureFacts.savedCount);
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)?.type).toBe('end');
    expect(end.counters?.saved).toBe(report.produced.saved);
    expect(gf.jobs.get(job.jobId)?.state).toBe('done');
    expect(gf.jobs.list()[0]?.jobId).toBe(job.jobId);
    expect(gf.jobs.running(job.catalogId)).toBeUndefined();

    const text = await gf.metrics.render();
    const value = (re: RegExp) => Number(text.match(re)?.[1]);
    const labels = `catalog="${job.catalog}",node="${gf.settings.node}"`;
    expect(value(new RegExp(`^greenfinger_urls_total\\{${labels},outcome="SAVED"\\} (\\d+)$`, 'm'))).toBe(
      report.produced.saved,
    );
    expect(value(new RegExp(`^greenfinger_urls_dispatched_total\\{${labels}\\} (\\d+)$`, 'm'))).toBe(
      report.urls.dispatched,
    );
    const pageFetches = site.requests.filter(
      (r) =>
        r.path !== '/robots.txt' &&
        r.path !== '/llms.txt' &&
        r.path !== '/sitemap.xml' &&
        !r.path.startsWith('/images/'),
    ).length;
    expect(
      value(new RegExp(`^greenfinger_fetch_duration_seconds_count\\{catalog="${job.catalog}"\\} (\\d+)$`, 'm')),
    ).toBe(pageFetches);
    expect(text).toContain(`greenfinger_fetch_duration_seconds_bucket{catalog="${job.catalog}",le="+Inf"}`);
    expect(text).toMatch(/^greenfinger_jobs\{node="[^"]+",state="done"\} 1$/m);
    expect(text).toMatch(/^# TYPE greenfinger_fetch_duration_seconds histogram$/m);
    expect(text).toMatch(/^greenfinger_process_resident_memory_bytes\{node="[^"]+"\} \d+$/m);

    const replay = await gf.jobs.start({ id: job.catalogId, action: 'replay', layers: ['index'] });
    expect(replay.state).toBe('running');
    const replayEnd = await watch(replay.jobId).ended;
    expect(replayEnd.state).toBe('done');
    expect(replayEnd.report).toMatchObject({ layers: { index: { written: report.produced.saved, failed: 0 } } });
    const missing = await codeOf(gf.jobs.start({ id: job.catalogId, action: 'replay', layers: ['index'], version: 7 }));
    expect(missing.code).toBe('NOT_FOUND');
  });

  it('stop → stopped, nothing published, the frontier kept; a resume job continues to done', async () => {
    const job = await gf.jobs.start({ url: site.origin, settings: { ...fast, threads: 1 } });
    await firstProgress(job.jobId);
    const stopped = await gf.jobs.stop({ jobId: job.jobId });
    expect(stopped.state).toBe('stopped');
    const report = stopped.report as RunReport;
    expect(report.ending).toMatchObject({ reason: 'interrupted', published: false });
    expect(report.urls.outstanding).toBeGreaterThan(0);
    const catalog = await (await gf.catalogs()).get({ id: job.catalogId });
    expect(catalog.searchVersion).toBe(-1);
    expect((await codeOf(gf.jobs.stop({ id: job.catalogId }))).code).toBe('NOT_FOUND');

    const resume = await gf.jobs.start({ id: job.catalogId, action: 'resume' });
    const end = await watch(resume.jobId).ended;
    expect(end.state).toBe('done');
    expect((end.report as RunReport).ending.published).toBe(true);
    expect((end.report as RunReport).produced.saved).toBe(fixtureFacts.savedCount);
  });

  it('a job that throws is failed, with core’s one-line error', async () => {
    await gf.close();
    gf = await open({
      frontier: async (ctx) => {
        const real = await LevelFrontier.open(ctx.layout.frontierDir(ctx.catalog.id, ctx.version));
        return new Proxy(real, {
          get(target, prop) {
            if (prop === 'recover') {
              return async () => {
                throw new CrawlerError('STORAGE', 'the frontier disk went away', { fix: 'mount it again' });
              };
            }
            const v = Reflect.get(target, prop, target);
            return typeof v === 'function' ? v.bind(target) : v;
          },
        });
      },
    });
    const job = await gf.jobs.start({ url: site.origin, settings: fast });
    const end = await watch(job.jobId).ended;
    expect(end.state).toBe('failed');
    expect(end.error).toEqual({ code: 'STORAGE', message: 'the frontier disk went away — mount it again' });
    expect(end.report).toBeNull();
    expect(gf.jobs.running(job.catalogId)).toBeUndefined();
  });

  it('addSeeds with nothing running stores them on the catalog; the next run saves a page only the seed reaches', async () => {
    site.addPage('/seed-a.html', page('Seed A', 'Only a seed leads here. <a href="/seed-a-child.html">child</a>'));
    site.addPage('/seed-a-child.html', page('Seed A child', 'Reached from the seed alone.'));
    const catalog = await (await gf.catalogs()).create({ url: site.origin, settings: fast });
    const added = await gf.jobs.addSeeds({ id: catalog.id }, [
      `${site.origin}/seed-a.html#top`,
      'http://127.0.0.2:1/elsewhere.html',
      'not a url',
    ]);
    expect(added.to).toBe('next-run');
    expect(added.jobId).toBeUndefined();
    expect(added.accepted).toEqual([`${site.origin}/seed-a.html`]);
    expect(added.refused.map((r) => r.url)).toEqual(['http://127.0.0.2:1/elsewhere.html', 'not a url']);
    expect(added.refused[0]?.reason).toMatch(/REJECTED_OUT_OF_SCOPE/);
    const stored = await (await gf.catalogs()).get({ id: catalog.id });
    expect(stored.settings.seedUrls).toEqual([`${site.origin}/seed-a.html`]);

    // A run the registry knows of that is not a job here (the CLI, another process) holds the catalog too.
    const held = await gf.runs.acquire(catalog.id, 'crawl');
    const busy = await codeOf(gf.jobs.start({ id: catalog.id }));
    expect(busy.code).toBe('CONFLICT');
    expect(busy.fix).toMatch(/^pause it first, or wait/);
    await held.release();

    const job = await gf.jobs.start({ id: catalog.id });
    const end = await watch(job.jobId).ended;
    expect(end.state).toBe('done');
    expect(site.count('/seed-a.html')).toBe(1);
    expect(site.count('/seed-a-child.html')).toBe(1);
    expect((end.report as RunReport).produced.saved).toBe(fixtureFacts.savedCount + 2);
  });

  it('addSeeds to a running job goes to its engine now; setDepthLimit applies to the running job at once', async () => {
    site.addPage('/seed-b.html', page('Seed B', 'Offered while the crawl runs.'));
    const job = await gf.jobs.start({ url: site.origin, settings: { ...fast, threads: 1 } });
    const { ended } = watch(job.jobId);
    const added = await gf.jobs.addSeeds({ id: job.catalogId }, [site.url('/seed-b.html'), site.url('/')]);
    expect(added).toMatchObject({ to: 'running-job', jobId: job.jobId, accepted: [site.url('/seed-b.html')] });
    expect(added.refused).toEqual([{ url: site.url('/'), reason: 'already queued or handled in this run' }]);
    const end = await ended;
    expect(end.state).toBe('done');
    expect(site.count('/seed-b.html')).toBe(1);
    const catalog = await (await gf.catalogs()).get({ id: job.catalogId });
    expect(catalog.settings.seedUrls).toEqual([]);

    // A new catalog of the same site (another name), limited to the start page while it runs.
    const limited = await gf.jobs.start({ url: site.origin, name: 'limited', settings: { ...fast, threads: 1 } });
    const set = await gf.jobs.setDepthLimit({ id: limited.catalogId }, 0);
    expect(set.runningJob).toBe(limited.jobId);
    expect(set.catalog.settings.depth).toBe(0);
    const limitedEnd = await watch(limited.jobId).ended;
    const report = limitedEnd.report as RunReport;
    expect(report.produced.saved).toBe(1);
    expect(Object.keys(report.rejected).some((k) => k.startsWith('REJECTED_TOO_DEEP'))).toBe(true);
    expect((await codeOf(gf.jobs.setDepthLimit({ id: limited.catalogId }, -2))).code).toBe('CONFIG');
  });

  it('close() stops running jobs gracefully; a later process resumes them', async () => {
    const job = await gf.jobs.start({ url: site.origin, settings: { ...fast, threads: 1 } });
    const { ended } = watch(job.jobId);
    await firstProgress(job.jobId);
    await gf.close();
    const end = await ended;
    expect(end.state).toBe('stopped');
    expect((end.report as RunReport).ending.published).toBe(false);
    expect((await codeOf(gf.jobs.start({ id: job.catalogId }))).code).toBe('CONFLICT');

    gf = await open();
    const resume = await gf.jobs.start({ id: job.catalogId, action: 'resume' });
    const resumed = await watch(resume.jobId).ended;
    expect(resumed.state).toBe('done');
    expect((resumed.report as RunReport).ending.published).toBe(true);
  });
});
