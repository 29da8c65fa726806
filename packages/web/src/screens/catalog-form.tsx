import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, get } from '../api';
import type { ApiAnswers, Catalog } from '../api-types.gen';
import { ErrorLine, go, href, Loading, message, ScreenTitle } from '../ui';

type Field =
  | 'name'
  | 'url'
  | 'startUrl'
  | 'depth'
  | 'maxPages'
  | 'intervalMs'
  | 'schedule'
  | 'outputs'
  | 'cat'
  | 'images'
  | 'orphans';
const OUTPUTS = ['file', 'index', 'vector'] as const;
/** The catalog setting `orphans`: what a crawl that reaches its end does with the pages it no longer reaches. */
const ORPHANS: ReadonlyArray<[value: string, label: string]> = [
  ['ignore', 'Keep them (ignore)'],
  ['delete', 'Remove them from search (delete)'],
  ['process', 'Fetch them again, keep those still there (process)'],
];

/**
 * Which field an API message is about: `body.settings.depth must be integer`, `body: unknown field "settings.x"`,
 * `body: "url" is required…`, or a setting's own line `--url: "x" is not a valid url…` / `--max-pages: …`.
 */
export function fieldOf(line: string): string | undefined {
  const m =
    /^body\.(?:settings\.)?([A-Za-z]+)/.exec(line) ??
    /^body: (?:unknown field )?"(?:settings\.)?([A-Za-z]+)/.exec(line) ??
    /^--([a-z][a-z-]*)/.exec(line) ??
    /^(?:settings\.)?([A-Za-z]+):/.exec(line);
  return m?.[1]?.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

interface Form {
  name: string;
  url: string;
  startUrl: string;
  depth: string;
  maxPages: string;
  intervalMs: string;
  schedule: string;
  outputs: string[];
  cat: string;
  images: boolean;
  orphans: string;
}

const blank: Form = {
  name: '',
  url: '',
  startUrl: '',
  depth: '-1',
  maxPages: '10000',
  intervalMs: '',
  schedule: '',
  outputs: ['file', 'index'],
  cat: 'other',
  images: true,
  orphans: 'ignore',
};

/** Create or edit a catalog; each field shows the API's own message when it refuses that field. */
export function CatalogForm({ editing }: { editing?: string | undefined }) {
  const [form, setForm] = useState<Form>(blank);
  const [original, setOriginal] = useState<Catalog | null>(null);
  const [cats, setCats] = useState<string[]>(['other']);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [loading, setLoading] = useState(!!editing);
  /** What deleting would remove, from the server's dry run: the confirmation shows these figures. */
  const [preview, setPreview] = useState<DeletePreview | null>(null);

  useEffect(() => {
    get<ApiAnswers['GET /v2/catalog/cats']>('/v2/catalog/cats').then(
      (c) => setCats(c.map((x) => x.cat)),
      () => undefined,
    );
    if (!editing) return;
    get<Catalog>(`/v2/catalog/${encodeURIComponent(editing)}`).then(
      (c) => {
        setOriginal(c);
        setForm({
          name: c.name,
          url: c.url,
          startUrl: c.startUrl === c.url ? '' : c.startUrl,
          depth: String(c.settings.depth ?? -1),
          maxPages: String(c.settings.maxPages ?? ''),
          intervalMs: c.settings.intervalMs === undefined ? '' : String(c.settings.intervalMs),
          schedule: c.settings.schedule ?? '',
          outputs: c.settings.outputs ?? ['file', 'index'],
          cat: c.settings.cat ?? 'other',
          images: c.settings.images !== false,
          orphans: c.settings.orphans ?? 'ignore',
        });
        setLoading(false);
      },
      (err) => {
        setError(message(err));
        setLoading(false);
      },
    );
  }, [editing]);

  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setErrors((e) => ({ ...e, [k]: undefined }));
  };

  const number = (v: string) => (v.trim() === '' ? undefined : Number(v));

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    const local: Partial<Record<Field, string>> = {};
    if (!form.url.trim()) local.url = 'Url is required: the site to crawl, such as https://docs.python.org/3/';
    if (form.outputs.length === 0) local.outputs = 'Choose at least one output (file keeps the pages)';
    for (const k of ['depth', 'maxPages', 'intervalMs'] as const) {
      if (form[k].trim() !== '' && !Number.isInteger(Number(form[k]))) local[k] = `${k} must be a whole number`;
    }
    setErrors(local);
    if (Object.keys(local).length) {
      document.getElementById(`f-${Object.keys(local)[0]}`)?.focus();
      return;
    }
    const settings: Record<string, unknown> = {
      depth: number(form.depth),
      maxPages: number(form.maxPages),
      intervalMs: number(form.intervalMs),
      schedule: form.schedule.trim(),
      outputs: form.outputs,
      cat: form.cat,
      images: form.images,
      orphans: form.orphans,
    };
    for (const k of Object.keys(settings)) if (settings[k] === undefined) delete settings[k];
    const body = {
      ...(form.name.trim() ? { name: form.name.trim() } : {}),
      url: form.url.trim(),
      ...(form.startUrl.trim() ? { startUrl: form.startUrl.trim() } : {}),
      settings,
    };
    setBusy(true);
    try {
      const r = original
        ? await call<Catalog>('PUT', `/v2/catalog/${encodeURIComponent(original.id)}`, body)
        : await call<Catalog>('POST', '/v2/catalog', body);
      go(`monitor/${r.data.name}`);
    } catch (err) {
      const line = message(err);
      const field = err instanceof ApiError && err.status === 400 ? fieldOf(line) : undefined;
      if (field && field in blank) {
        setErrors({ [field]: line });
        document.getElementById(`f-${field}`)?.focus();
      } else setError(line);
      setBusy(false);
    }
  };

  /** Ask the server what deleting would remove (a dry run: DELETE previews unless dryRun=false). */
  const askDelete = async () => {
    if (!original) return;
    setBusy(true);
    setError('');
    try {
      const r = await call<DeletePreview>('DELETE', `/v2/catalog/${encodeURIComponent(original.id)}?purge=true`);
      setPreview(r.data);
    } catch (err) {
      setError(`Cannot delete: ${message(err)}`);
    }
    setBusy(false);
  };

  const remove = async () => {
    if (!original) return;
    setBusy(true);
    try {
      await call('DELETE', `/v2/catalog/${encodeURIComponent(original.id)}?purge=true&dryRun=false`);
      go('catalogs');
    } catch (err) {
      setError(`Not deleted: ${message(err)}`);
      setBusy(false);
    }
  };

  const input = (
    k: Exclude<Field, 'outputs' | 'cat' | 'images' | 'orphans'>,
    label: string,
    hint: string,
    type = 'text',
  ) => (
    <div class={`field${errors[k] ? ' invalid' : ''}`}>
      <label for={`f-${k}`}>{label}</label>
      <input
        id={`f-${k}`}
        type={type}
        inputMode={type === 'number' ? 'numeric' : undefined}
        value={form[k]}
        onInput={(e) => set(k, e.currentTarget.value)}
        aria-invalid={errors[k] ? 'true' : undefined}
        aria-describedby={`h-${k}${errors[k] ? ` e-${k}` : ''}`}
        required={k === 'url'}
      />
      <small id={`h-${k}`}>{hint}</small>
      {errors[k] ? (
        <p id={`e-${k}`} class="field-error">
          {errors[k]}
        </p>
      ) : null}
    </div>
  );

  if (loading) return <Loading what="Reading the catalog" />;

  return (
    <section>
      <ScreenTitle>{original ? `Edit ${original.name}` : 'New catalog'}</ScreenTitle>
      <form class="catalog-form" onSubmit={submit} noValidate>
        {input('url', 'Url (required)', 'The site: every page under this url may be crawled.', 'url')}
        {input('name', 'Name', 'A short name to find it by; the url is used when empty.')}
        {input('startUrl', 'Start url', 'Where the crawl begins; the url when empty.', 'url')}
        <details open={!!(errors.depth || errors.maxPages || errors.intervalMs)}>
          <summary>Limits</summary>
          {input('depth', 'Depth', 'Links to follow from the start url; -1 = no limit.', 'number')}
          {input('maxPages', 'Most pages', 'The crawl stops after saving this many pages.', 'number')}
          {input('intervalMs', 'Pause between requests (ms)', 'Per host; empty = the default.', 'number')}
        </details>
        {input(
          'schedule',
          'Schedule',
          'Runs by itself while the server runs: "every 6h" after the last run, a cron expression such as "0 3 * * *", or empty for never.',
        )}
        <fieldset class={errors.outputs ? 'invalid' : ''} aria-describedby={errors.outputs ? 'e-outputs' : undefined}>
          <legend>Outputs</legend>
          {OUTPUTS.map((o) => (
            <label key={o} class="check">
              <input
                type="checkbox"
                id={o === 'file' ? 'f-outputs' : undefined}
                checked={form.outputs.includes(o)}
                onChange={(e) =>
                  set(
                    'outputs',
                    e.currentTarget.checked
                      ? OUTPUTS.filter((x) => x === o || form.outputs.includes(x))
                      : form.outputs.filter((x) => x !== o),
                  )
                }
              />{' '}
              {o === 'file'
                ? 'file (pages kept)'
                : o === 'index'
                  ? 'index (words search)'
                  : 'vector (meaning search; slower)'}
            </label>
          ))}
          {errors.outputs ? (
            <p id="e-outputs" class="field-error">
              {errors.outputs}
            </p>
          ) : null}
        </fieldset>
        <div class={`field${errors.cat ? ' invalid' : ''}`}>
          <label for="f-cat">Category</label>
          <select id="f-cat" value={form.cat} onChange={(e) => set('cat', e.currentTarget.value)}>
            {cats.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          {errors.cat ? <p class="field-error">{errors.cat}</p> : null}
        </div>
        <div class={`field${errors.orphans ? ' invalid' : ''}`}>
          <label for="f-orphans">Pages no longer linked</label>
          <select
            id="f-orphans"
            value={form.orphans}
            onChange={(e) => set('orphans', e.currentTarget.value)}
            aria-describedby="h-orphans"
          >
            {ORPHANS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <small id="h-orphans">What a crawl that reaches its end does with pages it held but no longer reached.</small>
          {errors.orphans ? <p class="field-error">{errors.orphans}</p> : null}
        </div>
        <label class="check">
          <input
            type="checkbox"
            id="f-images"
            checked={form.images}
            onChange={(e) => set('images', e.currentTarget.checked)}
          />{' '}
          Keep the pictures of pages
        </label>
        <ErrorLine error={error} what="Not saved" />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : original ? 'Save' : 'Create catalog'}
          </button>
          <a href={original ? href(`monitor/${original.name}`) : href('catalogs')}>Cancel</a>
        </div>
      </form>
      {original ? (
        <div class="danger">
          <h2>Delete this catalog</h2>
          <p>The definition goes, with every version it holds: pages, pictures, index and vectors.</p>
          {preview ? (
            <>
              <p>{previewLine(preview)}</p>
              {preview.running ? <p>Its crawl is running: deleting stops it first.</p> : null}
              <div class="actions">
                <button type="button" class="danger" onClick={remove} disabled={busy}>
                  Yes, delete {original.name}
                  {preview.purge?.versions.length ? ` and ${plural(preview.purge.versions.length, 'version')}` : ''}
                </button>
                <button type="button" class="secondary" onClick={() => setPreview(null)}>
                  Keep it
                </button>
              </div>
            </>
          ) : (
            <button type="button" class="secondary" onClick={askDelete} disabled={busy}>
              Delete catalog…
            </button>
          )}
        </div>
      ) : null}
    </section>
  );
}

/** What `DELETE /v2/catalog/{ref}?purge=true` answers on its dry run. */
interface DeletePreview {
  dryRun: boolean;
  running: boolean;
  purge: {
    versions: number[];
    results: Array<{ version: number; layer: string; count: number; bytes: number }>;
  } | null;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** The dry run's figures in one sentence: versions, then what each layer loses. */
function previewLine(p: DeletePreview): string {
  const versions = p.purge?.versions ?? [];
  if (versions.length === 0) return 'It holds no version: only the definition goes.';
  const byLayer = new Map<string, { count: number; bytes: number }>();
  for (const r of p.purge?.results ?? []) {
    const sum = byLayer.get(r.layer) ?? { count: 0, bytes: 0 };
    sum.count += r.count;
    sum.bytes += r.bytes;
    byLayer.set(r.layer, sum);
  }
  const names: Record<string, string> = {
    vector: 'vector points',
    index: 'index documents',
    file: 'files',
    db: 'database rows',
    system: 'working-state files',
  };
  const parts = [...byLayer].map(
    ([layer, s]) =>
      `${s.count.toLocaleString()} ${names[layer] ?? layer}${s.bytes > 0 ? ` (${megabytes(s.bytes)})` : ''}`,
  );
  return `Deleting removes ${plural(versions.length, 'version')} (${versions.join(', ')}): ${parts.join(', ')}.`;
}
