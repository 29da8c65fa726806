/**
 * RenderingDetector (seed 000): "plain http first. A browser only when what came back looks like an unrendered
 * shell." Pure: it reads the markup that came back over HTTP and says whether a browser would find more.
 *
 * A page is a shell when it has too little visible text AND one of the signs of a client-rendered page:
 * - `empty-mount`: an empty SPA mount point (`<div id="root"></div>`, `#app`, `#__next`, `[data-reactroot]`, `ng-app`, …);
 * - `noscript`: a `<noscript>` asking for JavaScript;
 * - `mostly-scripts`: inline and referenced script bytes make up most of the page.
 * Enough text is never rendered, whatever else the page holds: a server-rendered page with a hydration mount is
 * already complete.
 */

/** Why a page was sent to the browser (the report counts each). */
export type RenderReason = 'empty-mount' | 'noscript' | 'mostly-scripts';

export const RENDER_REASONS: readonly RenderReason[] = ['empty-mount', 'noscript', 'mostly-scripts'];

export type RenderDecision =
  | { render: false; textChars: number }
  | { render: true; reason: RenderReason; textChars: number };

export interface RenderingDetectorOptions {
  /** Visible text (characters, whitespace collapsed) at or above which a page is never rendered. @default 200 */
  minTextChars?: number | undefined;
  /** Share of the page's bytes that are `<script>` bytes above which a page is "mostly scripts". @default 0.6 */
  maxScriptShare?: number | undefined;
}

export interface RenderingDetector {
  decide(html: string): RenderDecision;
}

/** The ids and attributes that mark a mount point a framework renders into. */
const MOUNT_IDS = ['root', 'app', '__next', '__nuxt', 'svelte', 'main-app', 'react-root', 'application'];
const MOUNT_ATTRS = ['data-reactroot', 'ng-app', 'data-ng-app', 'ng-version', 'data-v-app', 'data-server-rendered'];

const SCRIPT_RE = /<script\b[^>]*>[\s\S]*?<\/script\s*>/gi;
const STYLE_RE = /<style\b[^>]*>[\s\S]*?<\/style\s*>/gi;
const NOSCRIPT_RE = /<noscript\b[^>]*>([\s\S]*?)<\/noscript\s*>/gi;
const COMMENT_RE = /<!--[\s\S]*?-->/g;
const TEMPLATE_RE = /<template\b[^>]*>[\s\S]*?<\/template\s*>/gi;
const TAG_RE = /<[^>]*>/g;
const ENTITY_RE = /&(?:#\d+|#x[0-9a-f]+|[a-z]+);/gi;
const ASKS_FOR_JS_RE =
  /\b(?:enable|turn on|activate|requires?|needs?|need to enable|without)\b[^<]{0,80}\bjavascript\b|\bjavascript\b[^<]{0,80}\b(?:required|enabled|disabled|needed)\b/i;

/** The RenderingDetector with its thresholds. Throws TypeError on a threshold out of range. */
export function createRenderingDetector(options: RenderingDetectorOptions = {}): RenderingDetector {
  const minTextChars = options.minTextChars ?? 200;
  const maxScriptShare = options.maxScriptShare ?? 0.6;
  if (!Number.isInteger(minTextChars) || minTextChars < 0) throw new TypeError('minTextChars: an integer ≥ 0');
  if (!(maxScriptShare > 0 && maxScriptShare <= 1)) throw new TypeError('maxScriptShare: a share in (0, 1]');
  return {
    decide(html) {
      const textChars = visibleTextChars(html);
      if (textChars >= minTextChars) return { render: false, textChars };
      if (hasEmptyMount(html)) return { render: true, reason: 'empty-mount', textChars };
      if (noscriptAsksForJs(html)) return { render: true, reason: 'noscript', textChars };
      if (scriptShare(html) > maxScriptShare) return { render: true, reason: 'mostly-scripts', textChars };
      return { render: false, textChars };
    },
  };
}

/** Characters of text a reader would see (scripts, styles, noscript, comments and tags removed; spaces collapsed). */
export function visibleTextChars(html: string): number {
  const body = bodyOf(html);
  const text = body
    .replace(COMMENT_RE, ' ')
    .replace(SCRIPT_RE, ' ')
    .replace(STYLE_RE, ' ')
    .replace(NOSCRIPT_RE, ' ')
    .replace(TEMPLATE_RE, ' ')
    .replace(TAG_RE, ' ')
    .replace(ENTITY_RE, 'x')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length;
}

function bodyOf(html: string): string {
  const open = html.search(/<body\b/i);
  return open >= 0 ? html.slice(open) : html.replace(/<head\b[^>]*>[\s\S]*?<\/head\s*>/i, ' ');
}

/** A mount element (by id or framework attribute) with nothing but whitespace or comments inside. */
function hasEmptyMount(html: string): boolean {
  const withoutComments = html.replace(COMMENT_RE, '');
  for (const id of MOUNT_IDS) {
    const re = new RegExp(
      `<([a-z][a-z0-9-]*)\\b[^>]*\\bid\\s*=\\s*["']?${escapeRe(id)}["'\\s>/][^>]*>\\s*</\\1\\s*>`,
      'i',
    );
    if (re.test(withoutComments)) return true;
    // <div id="root"> at the end of a truncated or self-closed mount, or <div id="app"/> (invalid but seen).
    const selfClosed = new RegExp(`<[a-z][a-z0-9-]*\\b[^>]*\\bid\\s*=\\s*["']?${escapeRe(id)}["']?[^>]*/>`, 'i');
    if (selfClosed.test(withoutComments)) return true;
  }
  for (const attr of MOUNT_ATTRS) {
    const re = new RegExp(
      `<([a-z][a-z0-9-]*)\\b[^>]*\\s${escapeRe(attr)}(?:\\s*=\\s*(?:"[^"]*"|'[^']*'|[^\\s>]+))?[^>]*>\\s*</\\1\\s*>`,
      'i',
    );
    if (re.test(withoutComments)) return true;
  }
  // ng-app on <html> or <body>: the whole page is the mount, and the text check already found it nearly empty.
  return /<(?:html|body)\b[^>]*\s(?:data-)?ng-app\b/i.test(withoutComments);
}

function noscriptAsksForJs(html: string): boolean {
  for (const m of html.matchAll(NOSCRIPT_RE)) {
    const inner = (m[1] ?? '').replace(TAG_RE, ' ');
    if (ASKS_FOR_JS_RE.test(inner)) return true;
  }
  return false;
}

/** Share of the page's bytes inside `<script>` elements (inline code and src-only elements alike). */
function scriptShare(html: string): number {
  if (html.length === 0) return 0;
  let scripts = 0;
  for (const m of html.matchAll(SCRIPT_RE)) scripts += m[0].length;
  return scripts / html.length;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
