import { useEffect, useState } from 'preact/hooks';
import { get, qs, readEvents } from '../api';
import type { ChangeRun, ChangeRuns, Changes, JobView } from '../api-types.gen';
import { Empty, ErrorLine, go, href, Loading, message, num, TableBox, useLoad, useRoute, when } from '../ui';

/** How many urls of each list an opened run shows; the rest are counted. */
const SHOWN = 200;

/** `+3 ~1 −1`, read out as "3 added, 1 changed, 1 removed". */
export function Delta({ added, changed, removed }: { added: number; changed: number; removed: number }) {
  return (
    <span class="delta" role="img" aria-label={`${added} added, ${changed} changed, ${removed} removed`}>
      <span class="ins">+{num(added)}</span> <span class="mod">~{num(changed)}</span>{' '}
      <span class="del">−{num(removed)}</span>
    </span>
  );
}

/** A short text diff (`- old line`, `+ new line`), each line marked by its sign. */
function Diff({ text, url }: { text: string; url: string }) {
  return (
    <pre class="diff" title={`Text diff of ${url}`}>
      {text.split('\n').map((line, i) => (
        <span key={i} class={line.startsWith('+') ? 'ins' : line.startsWith('-') ? 'del' : undefined}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** A url of the change set, leading to its row in the url ledger. */
function LedgerLink({ catalog, url }: { catalog: string; url: string }) {
  return (
    <a class="url-cell" href={href('urls', { catalog, q: url })}>
      {url}
    </a>
  );
}

function More({ shown, total }: { shown: number; total: number }) {
  return total > shown ? (
    <p class="muted">
      and {num(total - shown)} more (the CLI's <code>greenfinger changes --json</code> lists them all)
    </p>
  ) : null;
}

/** One run opened: its urls added, changed with the short diff of each page, removed. */
function RunChanges({ catalog, at }: { catalog: string; at: string }) {
  const ref = encodeURIComponent(catalog);
  const run = useLoad(at, (s) => get<ChangeRun>(`/v2/catalog/${ref}/changes/run${qs({ at, limit: SHOWN })}`, s));
  if (run.error) return <ErrorLine error={run.error} what="The run's changes could not be read" />;
  if (!run.data) return <Loading what="Reading the run's changes" />;
  const r = run.data;
  const nothing = r.total.added + r.total.changed + r.total.removed === 0;
  return (
    <section class="run-changes" aria-label={`Changes of the ${r.action} of version ${r.version}`}>
      <h3>
        The {r.action} of version {r.version}, ended {when(r.at)}
        {r.comparedWith !== undefined ? ` (compared with version ${r.comparedWith})` : ''}
      </h3>
      {nothing ? <p class="muted">It changed nothing: every page it saw read as before.</p> : null}
      {r.total.changed > 0 ? (
        <>
          <h4>Changed ({num(r.total.changed)})</h4>
          <ul class="changed-list">
            {r.changed.map((c) => (
              <li key={c.url}>
                <LedgerLink catalog={catalog} url={c.url} />
                <Diff text={c.diff} url={c.url} />
              </li>
            ))}
          </ul>
          <More shown={r.changed.length} total={r.total.changed} />
        </>
      ) : null}
      {[
        ['Added', r.added, r.total.added],
        ['Removed', r.removed, r.total.removed],
      ].map(([label, urls, total]) =>
        (total as number) > 0 ? (
          <div key={label as string}>
            <h4>
              {label} ({num(total as number)})
            </h4>
            <ul class="url-list" aria-label={`${label} urls`}>
              {(urls as string[]).map((u) => (
                <li key={u}>
                  <LedgerLink catalog={catalog} url={u} />
                </li>
              ))}
            </ul>
            <More shown={(urls as string[]).length} total={total as number} />
          </div>
        ) : null,
      )}
    </section>
  );
}

/**
 * The change log of a catalog, run by run (docs/freshness.md): each publishing run's counts, a run opened shows its
 * urls and the diff of each changed page. While a run of the catalog goes (`runningJob`), the change event stream is
 * followed: the run's set shows, opened, as soon as it publishes.
 */
export function ChangeLog({
  catalog,
  runningJob,
  tick,
}: {
  catalog: string;
  runningJob?: string | undefined;
  tick: number;
}) {
  const ref = encodeURIComponent(catalog);
  const [reloads, setReloads] = useState(0);
  const runs = useLoad(`${tick}-${reloads}`, (s) => get<ChangeRuns>(`/v2/catalog/${ref}/changes/runs`, s));
  // The run opened is named by the page's address (`#/monitor/NAME?run=AT`, a link to share); a run the live
  // stream says just published is opened by going there.
  const open = useRoute().query.get('run');
  const [following, setFollowing] = useState<string | null>(null);
  const [going, setGoing] = useState<JobView | null>(null);
  const [note, setNote] = useState('');

  // A new run: follow the change stream until it says what the run changed (a run ending keeps it open until then).
  useEffect(() => {
    if (runningJob && runningJob !== following) setFollowing(runningJob);
  }, [runningJob]);
  useEffect(() => {
    if (!following) return;
    const ac = new AbortController();
    readEvents(
      `/v2/catalog/${ref}/changes/events`,
      (event, data) => {
        if (event === 'running') {
          setGoing(data as JobView);
          setNote('');
        } else if (event === 'changes') {
          const c = data as Changes;
          const run = c.runs[c.runs.length - 1];
          setGoing(null);
          setNote(
            run
              ? `The ${run.action} of version ${run.version} published: ${c.added.length} added, ${c.changed.length} changed, ${c.removed.length} removed.`
              : '',
          );
          if (run) go(`monitor/${catalog}`, { run: run.at });
          setReloads((n) => n + 1);
        } else if (event === 'end') {
          setGoing(null);
          setNote('The run ended without publishing: it recorded no change set.');
        }
      },
      ac.signal,
    ).catch((err) => {
      if (!ac.signal.aborted) setNote(`The change stream broke off: ${message(err)}.`);
    });
    return () => ac.abort();
  }, [ref, following]);

  return (
    <>
      <h2>Change log</h2>
      <p class="muted" aria-live="polite" data-testid="change-live">
        {going
          ? `The ${going.action} of version ${going.version} is running: what it changes shows here once it publishes.`
          : note}
      </p>
      <ErrorLine error={runs.error} />
      {runs.loading && !runs.data ? <Loading what="Reading the change log" /> : null}
      {runs.data && runs.data.runs.length === 0 ? (
        <Empty>No run has published yet: each publishing run's added, changed and removed urls show here.</Empty>
      ) : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <TableBox label="Change log">
          <table>
            <caption class="sr-only">What each publishing run of {catalog} changed</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Action</th>
                <th scope="col">Ended</th>
                <th scope="col">Changes</th>
                <th scope="col">Urls and diffs</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.runs.map((r) => (
                <tr key={r.at} class={open === r.at ? 'selected' : undefined}>
                  <td>{r.version}</td>
                  <td>{r.action}</td>
                  <td>{when(r.at)}</td>
                  <td>
                    <Delta added={r.added} changed={r.changed} removed={r.removed} />
                  </td>
                  <td>
                    <a
                      href={href(`monitor/${catalog}`, open === r.at ? {} : { run: r.at })}
                      aria-current={open === r.at ? 'true' : undefined}
                    >
                      {open === r.at ? 'Close' : 'Open'} the {r.action} of version {r.version}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ) : null}
      {runs.data && runs.data.total > runs.data.runs.length ? (
        <p class="muted">
          The {num(runs.data.runs.length)} latest of {num(runs.data.total)} runs are shown.
        </p>
      ) : null}
      {open ? <RunChanges key={open} catalog={catalog} at={open} /> : null}
    </>
  );
}
