export interface ChunkOptions {
  /** Target characters per chunk (GF_CHUNK_SIZE). @default 1000 */
  chunkSize?: number;
  /** Characters repeated from the end of one chunk at the start of the next (GF_CHUNK_OVERLAP). @default 200 */
  overlap?: number;
  /** Chunks kept per text; the rest of a very long page is not embedded (GF_MAX_CHUNKS). @default 20 */
  maxChunks?: number;
}

const SENTENCE_END = /[.!?。！？…](?:["'”’)\]]*)\s/g;

/** Last index in (from, to] where a cut leaves `text.slice(start, cut)` ending on a sentence, or -1. */
function lastSentenceEnd(text: string, from: number, to: number): number {
  SENTENCE_END.lastIndex = from;
  let best = -1;
  for (let m = SENTENCE_END.exec(text); m !== null && m.index < to; m = SENTENCE_END.exec(text)) {
    const cut = m.index + m[0].length - 1;
    if (cut <= to) best = cut;
  }
  return best;
}

function lastSpace(text: string, from: number, to: number): number {
  for (let i = to; i > from; i--) if (text.charCodeAt(i) === 32) return i;
  return -1;
}

function nextSpace(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 32) return i + 1;
  return -1;
}

/**
 * Splits text into chunks of about `chunkSize` characters for embedding. A chunk ends at a sentence end when
 * one falls in its last 40 %, else at a space, else mid-word (only for text without spaces). The next chunk
 * starts `overlap` characters earlier, moved forward to the next word start, so no word is cut there.
 * Whitespace is collapsed; empty text gives no chunks.
 */
export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const size = Math.max(1, Math.trunc(options.chunkSize ?? 1000));
  const overlap = Math.min(Math.max(0, Math.trunc(options.overlap ?? 200)), Math.floor(size / 2));
  const maxChunks = Math.max(1, Math.trunc(options.maxChunks ?? 20));
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length === 0) return [];
  if (t.length <= size) return [t];

  const chunks: string[] = [];
  let start = 0;
  while (start < t.length && chunks.length < maxChunks) {
    let end = start + size;
    if (end >= t.length) {
      end = t.length;
    } else {
      const floor = start + Math.floor(size * 0.6);
      const sentence = lastSentenceEnd(t, floor, end);
      if (sentence > start) end = sentence;
      else {
        const space = lastSpace(t, start + Math.floor(size / 2), end);
        if (space > start) end = space;
      }
    }
    const chunk = t.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= t.length) break;
    let next = Math.max(end - overlap, start + 1);
    if (next < end && next > 0 && t.charCodeAt(next - 1) !== 32) {
      const word = nextSpace(t, next, end);
      next = word > 0 ? word : end;
    }
    start = next;
    while (start < t.length && t.charCodeAt(start) === 32) start++;
  }
  return chunks;
}
