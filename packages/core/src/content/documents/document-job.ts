import type { ParsedDocument } from './document-parser.js';

/** A document sent to the document worker process: one at a time, the next only after the answer. */
export interface DocumentJob {
  id: number;
  parser: string;
  bytes: Uint8Array;
  url: string;
  contentType: string;
}

/** What the document worker process sends: `ready` once its libraries are loaded, then one answer per job. */
export type DocumentWorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; id: number; doc: ParsedDocument }
  | { type: 'failed'; id: number; message: string };

/** The first line of an error's message, at most 300 characters. */
export function shortMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const line = message.split('\n', 1)[0]!.trim() || (err instanceof Error ? err.name : 'failed');
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}
