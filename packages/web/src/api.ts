/** The page talks to the REST API only: `/v2/...` with the Bearer token kept in sessionStorage. */

import type { Session } from './types';

const KEY = 'greenfinger.session';

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && s.expiresAt > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

export const isAdmin = (s: Session | null) => !!s?.roles.includes('ADMIN');

/** An answer with success=false (or no answer): the API's one line, and its status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

let onSignedOut: (why: string) => void = () => undefined;
/** Called when the API refuses the token (expired, signed out elsewhere, user deleted). */
export function whenSignedOut(f: (why: string) => void): void {
  onSignedOut = f;
}

function headers(json: boolean): Record<string, string> {
  const s = loadSession();
  return {
    ...(s ? { authorization: `Bearer ${s.token}` } : {}),
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}

async function refusal(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { message?: string };
    if (body.message) message = body.message;
  } catch {
    // not JSON: keep the status line
  }
  if (res.status === 401 && loadSession()) {
    saveSession(null);
    onSignedOut(message);
  }
  return new ApiError(res.status, message);
}

async function send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'the server does not answer: check that greenfinger serve still runs, then try again');
  }
  if (!res.ok) throw await refusal(res);
  return res;
}

/** One call: the `data` of the envelope (and its message), or an ApiError with the API's line. */
export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<{ data: T; message: string }> {
  const res = await send(method, path, body, signal);
  const env = (await res.json()) as { success: boolean; message: string; data: T };
  if (!env.success) throw new ApiError(res.status, env.message);
  return { data: env.data, message: env.message };
}

export const get = async <T>(path: string, signal?: AbortSignal) =>
  (await call<T>('GET', path, undefined, signal)).data;

/** A stored file (text, html, picture) fetched with the token: an <img> or <a> cannot send the header itself. */
export async function getBlob(path: string, signal?: AbortSignal): Promise<Blob> {
  return (await send('GET', path, undefined, signal)).blob();
}

/** `?a=1&b=x` from an object, leaving out empty values. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * Read a server-sent event stream with fetch (EventSource cannot send an Authorization header). Calls onEvent for
 * each event until the server closes the stream or the signal aborts.
 */
export async function readEvents(
  path: string,
  onEvent: (event: string, data: unknown) => void,
  signal: AbortSignal,
): Promise<void> {
  const res = await send('GET', path, undefined, signal);
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) {
        try {
          onEvent(event, JSON.parse(data.join('\n')));
        } catch {
          onEvent(event, data.join('\n'));
        }
      }
      cut = buffer.indexOf('\n\n');
    }
  }
}
