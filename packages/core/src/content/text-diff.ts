import { normalizeVolatile } from './volatile-text.js';

/** At most this many lines in a short diff. */
const MAX_LINES = 12;
/** A line of a short diff is cut to this many characters. */
const MAX_LINE_CHARS = 200;

/**
 * The text's lines for a diff: its own lines, long ones split at sentence ends, blank ones dropped. Each keeps its
 * normalised form, so a line whose only difference is volatile is not reported.
 */
function lines(text: string): Array<{ line: string; key: string }> {
  const out: Array<{ line: string; key: string }> = [];
  for (const raw of text.split(/\n+/)) {
    for (const part of raw.length > MAX_LINE_CHARS ? raw.split(/(?<=[.!?])\s+/) : [raw]) {
      const line = part.trim();
      if (line) out.push({ line, key: normalizeVolatile(line) });
    }
  }
  return out;
}

function cut(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line;
}

/**
 * A short text diff of a page's article: the lines removed (`- …`) then the lines added (`+ …`), in the order of
 * each text, lines whose only difference is volatile left out; at most 12 lines of at most 200 characters, and a
 * last line saying how many more there were. Lines are compared as a set (a moved line is not a change): short and
 * linear in the texts' length, which is what a change log needs, not a patch.
 */
export function shortTextDiff(before: string, after: string): string {
  const a = lines(before);
  const b = lines(after);
  const inA = new Set(a.map((l) => l.key));
  const inB = new Set(b.map((l) => l.key));
  const changes = [
    ...a.filter((l) => !inB.has(l.key)).map((l) => `- ${cut(l.line)}`),
    ...b.filter((l) => !inA.has(l.key)).map((l) => `+ ${cut(l.line)}`),
  ];
  const shown = changes.slice(0, MAX_LINES);
  if (changes.length > MAX_LINES) shown.push(`… ${changes.length - MAX_LINES} more lines changed`);
  return shown.join('\n');
}
