import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/** The current hash route: `#/search?q=x` → { path: ['search'], query }. */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const [p = '', q = ''] = h.split('?', 2);
  return { path: p.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return `#/${path}${s ? `?${s}` : ''}`;
}

export function go(path: string, query: Record<string, string | number | undefined | null> = {}): void {
  location.hash = href(path, query);
}

export const message = (err: unknown) =>
  err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);

/** Load something when its key changes; `reload()` again. Aborted when the screen goes. */
export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ac = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load(ac.signal).then(
      (data) => !ac.signal.aborted && setState({ data, loading: false }),
      (err) => !ac.signal.aborted && setState({ error: message(err), loading: false }),
    );
    return () => ac.abort();
  }, [key, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function ErrorLine({ error, what }: { error?: string | undefined; what?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {what ? <strong>{what}: </strong> : null}
      {error}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** A table that scrolls sideways on a narrow screen, reachable by keyboard. */
export function TableBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section class="table-box" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** The screen's heading, focused when the screen opens so a keyboard or screen reader starts there. */
export function ScreenTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export const num = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toLocaleString('en'));

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${u[i]}`;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB') : '—');

export function seconds(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
