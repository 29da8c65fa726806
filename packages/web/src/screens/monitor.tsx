import { useEffect, useState } from 'preact/hooks';
import { call, get, qs, readEvents } from '../api';
import type {
  ApiAnswers,
  Catalog,
  DeleteReport,
  DeleteRow,
  JobStarted,
  JobView,
  ReportRow,
  VersionRow,
} from '../api-types.gen';
import type { CounterView } from '../types';
import {
  bytes,
  Empty,
  ErrorLine,
  href,
  Loading,
  message,
  num,
  ScreenTitle,
  seconds,
  TableBox,
  useLoad,
  when,
} from '../ui';
import { ChangeLog } from './change-log';
import { HostPaces } from './host-paces';

const COLORS = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
/** SAVED is always green; the other outcomes take the next colour in order. */
const colorOf = (outcome: string, i: number) => (outcome === 'SAVED' ? 'c0' : COLORS[i % COLORS.length]);

/** `{REJECTED_OUT_OF_SCOPE:domain-scope: 4154, …}` + saved → one count per outcome, largest first. */
export function outcomesOf(saved: number, rejected: Record<string, number> | undefined) {
  const by = new Map<string, number>();
  if (saved > 0) by.set('SAVED', saved);
  for (const [k, n] of Object.entries(rejected ?? {})) {
    const outcome = k.split(':')[0] ?? k;
    by.set(outcome, (by.get(outcome) ?? 0) + n);
  }
  return [...by.entries()].sort((a, b) => b[1] - a[1]);
}

function OutcomeBar({
  catalog,
  saved,
  rejected,
}: {
  catalog: string;
  saved: number;
  rejected?: Record<string, number>;
}) {
  const rows = outcomesOf(saved, rejected);
  const total = rows.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return <p class="muted">No url has an outcome yet.</p>;
  return (
    <div class="outcomes">
      <div class="bar" aria-hidden="true">
        {rows.map(([o, n], i) => (
          <a
            key={o}
            class={`seg ${colorOf(o, i)}`}
            style={{ flexGrow: n, flexBasis: 0 }}
            href={href('urls', { catalog, outcome: o })}
            tabIndex={-1}
            title={`${o}: ${n}`}
          >
            <span class="sr-only">{o}</span>
          </a>
        ))}
      </div>
      <ul class="legend" aria-label="Where the urls went">
        {rows.map(([o, n], i) => (
          <li key={o}>
            <span class={`swatch ${colorOf(o, i)}`} aria-hidden="true" />
            <a href={href('urls', { catalog, outcome: o })}>
              {o}: {num(n)} {n === 1 ? 'url' : 'urls'}
            </a>{' '}
            <span class="muted">({((100 * n) / total).toFixed(1)} %)</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function CounterList({ c, queued, rate }: { c: CounterView; queued?: number | undefined; rate?: number | undefined }) {
  const items: Array<[string, number | string | undefined]> = [
    ['Dispatched', c.dispatched],
    ['Handled', c.handled],
    ['Saved', c.saved],
    ['Indexed', c.indexed],
    ['Vectored', c.vectored],
    ['Pictures', c.images],
    ['Refused before fetching', c.filtered],
    ['Failures', (c.failures ?? 0) + (c.unreachable ?? 0)],
    ['Queued', queued],
    ['Pages per second', rate === undefined ? undefined : rate.toFixed(1)],
    ['Elapsed', c.elapsedMs === undefined ? undefined : seconds(c.elapsedMs)],
  ];
  return (
    <dl class="counters">
      {items
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{typeof v === 'number' ? num(v) : v}</dd>
          </div>
        ))}
    </dl>
  );
}

/** One catalog: live counters over the event stream, where the urls went, run history, versions. */
export function Monitor({ catalogRef, admin }: { catalogRef: string; admin: boolean }) {
  const ref = encodeURIComponent(catalogRef);
  const [tick, setTick] = useState(0);
  const catalog = useLoad(`c${tick}`, (s) => get<Catalog>(`/v2/catalog/${ref}`, s));
  const reports = useLoad(`r${tick}`, (s) => get<ReportRow[]>(`/v2/crawl/${ref}/reports`, s));
  const versions = useLoad(`v${tick}`, (s) => get<VersionRow[]>(`/v2/crawl/${ref}/versions`, s));
  const schedules = useLoad(`s${tick}`, (s) =>
    get<ApiAnswers['GET /v2/catalog/schedules']>('/v2/catalog/schedules', s),
  );
  const [live, setLive] = useState<JobView | null>(null);
  const [ended, setEnded] = useState<JobView | null>(null);
  const [streamState, setStreamState] = useState<'connecting' | 'live' | 'idle' | 'ended' | 'lost'>('connecting');
  const [watch, setWatch] = useState(0);
  const [startedJob, setStartedJob] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [dryRun, setDryRun] = useState<{ version: number; rows: DeleteRow[]; serving: boolean } | null>(null);

  // The event stream: progress about once a second, then end. Watched again after this page starts a run.
  useEffect(() => {
    const ac = new AbortController();
    setStreamState('connecting');
    readEvents(
      `/v2/crawl/${ref}/events`,
      (event, data) => {
        if (event === 'progress') {
          setLive(data as JobView);
          setStreamState('live');
        } else if (event === 'end') {
          setLive(null);
          setEnded(data as JobView);
          setStreamState('ended');
          setTick((t) => t + 1);
        } else if (event === 'idle') setStreamState((s) => (s === 'ended' ? s : 'idle'));
      },
      ac.signal,
    ).catch((err) => {
      if (!ac.signal.aborted) {
        setStreamState('lost');
        setError(`The live stream broke off: ${message(err)}. Reload the page to watch again.`);
      }
    });
    return () => ac.abort();
  }, [ref, watch]);

  const start = async (verb: string, body?: unknown) => {
    setError('');
    setStatus(`Starting ${verb}…`);
    try {
      const r = await call<JobStarted>('POST', `/v2/crawl/${ref}${verb === 'crawl' ? '' : `/${verb}`}`, body);
      setStatus(r.message);
      setEnded(null);
      setStartedJob(r.data.jobId);
      setWatch((w) => w + 1);
    } catch (err) {
      setStatus('');
      setError(`${verb} refused: ${message(err)}`);
    }
  };

  const stop = async () => {
    setStatus('Stopping: pages in flight finish first…');
    try {
      const r = await call('POST', `/v2/crawl/${ref}/interrupt`);
      setStatus(r.message);
    } catch (err) {
      setStatus('');
      setError(`Not stopped: ${message(err)}`);
    }
  };

  const askDelete = async (v: VersionRow) => {
    setError('');
    setStatus(`Counting what deleting version ${v.version} removes (dry run)…`);
    try {
      const r = await call<DeleteReport>(
        'DELETE',
        `/v2/crawl/${ref}/versions${qs({ version: v.version, force: v.serving || undefined, dryRun: true })}`,
      );
      const rows = r.data.results ?? [];
      setDryRun({ version: v.version, rows, serving: v.serving });
      setStatus('Dry run done: nothing was deleted yet.');
    } catch (err) {
      setStatus('');
      setError(`Dry run refused: ${message(err)}`);
    }
  };

  const confirmDelete = async () => {
    if (!dryRun) return;
    setStatus(`Deleting version ${dryRun.version}…`);
    try {
      await call(
        'DELETE',
        `/v2/crawl/${ref}/versions${qs({ version: dryRun.version, force: dryRun.serving || undefined, dryRun: false })}`,
      );
      setStatus(`Version ${dryRun.version} deleted.`);
      setDryRun(null);
      setTick((t) => t + 1);
    } catch (err) {
      setStatus('');
      setError(`Not deleted: ${message(err)}`);
    }
  };

  if (catalog.error) return <ErrorLine error={catalog.error} what={`Catalog ${catalogRef}`} />;
  if (!catalog.data) return <Loading what={`Reading catalog ${catalogRef}`} />;
  const c = catalog.data;
  const last = reports.data?.[reports.data.length - 1];
  const lastReport = ended?.report ?? last?.report;
  const running = !!live;
  const scheduled = schedules.data?.find((x) => x.catalogId === c.id);
  const replayLayers = (c.settings.outputs ?? ['file', 'index']).filter((o) => o === 'index' || o === 'vector');

  return (
    <section>
      <div class="title-row">
        <ScreenTitle>Monitor: {c.name}</ScreenTitle>
        <a href={href('search', { catalog: c.name })}>Search it</a>
      </div>
      <p class="url">{c.url}</p>
      {admin ? (
        <div class="actions">
          {running ? (
            <button type="button" class="secondary" onClick={stop}>
              Stop the crawl
            </button>
          ) : (
            <>
              <button type="button" onClick={() => start('crawl')}>
                Start crawl
              </button>
              <button type="button" class="secondary" disabled={c.searchVersion < 0} onClick={() => start('update')}>
                Update (new version)
              </button>
              <button type="button" class="secondary" disabled={c.searchVersion < 0} onClick={() => start('merge')}>
                Merge (revisit what changed)
              </button>
              <a href={href(`catalogs/edit/${c.name}`)}>Edit settings</a>
            </>
          )}
        </div>
      ) : null}
      <p role="status" class="status-line">
        {status}
      </p>
      <ErrorLine error={error} />

      <h2>Now</h2>
      <div aria-live="polite" class="now">
        {live ? (
          <>
            <p>
              <span class="badge running">{live.state}</span> {live.action} of version {live.version}, started{' '}
              {when(live.startedAt)}
            </p>
            <progress
              max={Math.max(1, live.counters?.dispatched ?? 1)}
              value={live.counters?.handled ?? 0}
              aria-label="Urls handled of those dispatched"
            />
          </>
        ) : streamState === 'connecting' ? (
          <Loading what="Connecting to the live stream" />
        ) : ended ? (
          <p>
            <span class={`badge ${ended.state}`}>{ended.state}</span> The {ended.action} of version {ended.version}{' '}
            ended {when(ended.endedAt)}
            {ended.report?.ending ? `: ${ended.report.ending.note}` : ''}
            {ended.error ? `: ${ended.error}` : ''}
          </p>
        ) : (
          <p>
            <span class="badge idle">idle</span> Nothing runs now.{' '}
            {lastReport
              ? 'The last run is shown below.'
              : admin
                ? 'Start a crawl to fill this catalog.'
                : 'Ask an admin to start a crawl.'}
          </p>
        )}
      </div>
      {scheduled ? (
        <p class="muted" data-testid="schedule">
          Runs by itself ({scheduled.schedule}):{' '}
          {scheduled.running ? 'running now' : scheduled.nextRunAt ? `next ${when(scheduled.nextRunAt)}` : 'never'}
          {scheduled.lastChanges
            ? ` · its last run changed ${scheduled.lastChanges.added} added, ${scheduled.lastChanges.changed} changed, ${scheduled.lastChanges.removed} removed`
            : ''}
        </p>
      ) : null}
      {live?.counters ? (
        <CounterList c={live.counters} queued={live.queued} rate={live.pagesPerSecond} />
      ) : lastReport ? (
        <CounterList c={{ ...lastReport.urls, ...lastReport.produced, elapsedMs: lastReport.elapsedMs }} />
      ) : null}
      {live?.hosts?.length ? <HostPaces catalog={c.name} hosts={live.hosts} /> : null}

      <h2>Where the urls went</h2>
      {live?.counters ? (
        <OutcomeBar catalog={c.name} saved={live.counters.saved ?? 0} rejected={live.counters.rejected} />
      ) : lastReport ? (
        <OutcomeBar catalog={c.name} saved={lastReport.produced.saved} rejected={lastReport.rejected} />
      ) : (
        <p class="muted">No run yet: the outcomes of its urls show here once a crawl starts.</p>
      )}
      <p class="muted">
        Each outcome lists its urls; a url says why it ended as it did. Per node counts need a cluster: this is one
        node.
      </p>

      <h2>Run history</h2>
      <ErrorLine error={reports.error} />
      {reports.data && reports.data.length === 0 ? <Empty>No run has ended yet.</Empty> : null}
      {reports.data && reports.data.length > 0 ? (
        <TableBox label="Run history">
          <table>
            <caption class="sr-only">Each run of {c.name}</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Action</th>
                <th scope="col">Node</th>
                <th scope="col">Started</th>
                <th scope="col">Took</th>
                <th scope="col">Saved</th>
                <th scope="col">Published</th>
                <th scope="col">Ending</th>
              </tr>
            </thead>
            <tbody>
              {[...reports.data].reverse().map((r) => (
                <tr key={`${r.version}-${r.report.startedAt}`}>
                  <td>{r.version}</td>
                  <td>{r.action}</td>
                  <td>{r.report.node}</td>
                  <td>{when(r.report.startedAt)}</td>
                  <td>{seconds(r.report.elapsedMs)}</td>
                  <td>{num(r.report.produced?.saved)}</td>
                  <td>{r.published ? 'yes' : 'no'}</td>
                  <td>{r.report.ending?.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ) : null}

      <ChangeLog catalog={c.name} runningJob={live?.jobId ?? startedJob} tick={tick} />

      <h2>Versions</h2>
      <ErrorLine error={versions.error} />
      {versions.data && versions.data.length === 0 ? (
        <Empty>No version holds data yet{admin ? ': start a crawl.' : '.'}</Empty>
      ) : null}
      {versions.data && versions.data.length > 0 ? (
        <TableBox label="Versions">
          <table>
            <caption class="sr-only">The versions of {c.name}</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">State</th>
                <th scope="col">Pages</th>
                <th scope="col">Pictures</th>
                <th scope="col">Ended</th>
                {admin ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {versions.data.map((v) => (
                <tr key={v.version}>
                  <td>{v.version}</td>
                  <td>
                    {v.state}
                    {v.serving ? ' (searched)' : ''}
                  </td>
                  <td>{num(v.saved)}</td>
                  <td>{num(v.images)}</td>
                  <td>{when(v.endedAt)}</td>
                  {admin ? (
                    <td class="row-actions">
                      <button
                        type="button"
                        class="secondary"
                        disabled={running || replayLayers.length === 0}
                        onClick={() => start('replay', { version: v.version, layers: replayLayers })}
                      >
                        Replay v{v.version}
                      </button>
                      <button type="button" class="secondary" disabled={running} onClick={() => askDelete(v)}>
                        Delete v{v.version}…
                      </button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ) : null}
      {dryRun ? (
        <div class="confirm" role="alertdialog" aria-labelledby="dry-title" aria-describedby="dry-what">
          <h3 id="dry-title">Delete version {dryRun.version}?</h3>
          <p id="dry-what">
            Dry run: this would remove{' '}
            {dryRun.rows.length === 0
              ? 'nothing'
              : dryRun.rows
                  .map((r) => `${num(r.count)} from ${r.layer}${r.bytes ? ` (${bytes(r.bytes)})` : ''}`)
                  .join(', ')}
            .
            {dryRun.serving
              ? ' It is the version searched now: search finds nothing here until another is published.'
              : ''}
          </p>
          <div class="actions">
            <button type="button" class="danger" onClick={confirmDelete}>
              Confirm: delete version {dryRun.version}
            </button>
            <button type="button" class="secondary" onClick={() => setDryRun(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
