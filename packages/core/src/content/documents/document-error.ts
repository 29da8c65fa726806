import { StageError } from '../../errors.js';

/** Why a document could not be read, as the crawl tells them apart (the engine ends each as REJECTED_IMPORT). */
export const DOCUMENT_FAILURE_REASONS = [
  /** Over the byte cap (GF_DOCUMENT_MAX_MB): refused before any parsing. */
  'too-large',
  /** The parser was still working at GF_DOCUMENT_TIMEOUT_MS: its worker was terminated and replaced. */
  'timeout',
  /** The parser threw (corrupt, encrypted, not what its type says), or its worker crashed or ran out of memory. */
  'unreadable',
] as const;

export type DocumentFailureReason = (typeof DOCUMENT_FAILURE_REASONS)[number];

/** A document (PDF, Word, text) could not be turned into content; `reason` says why, the message says what. */
export class DocumentError extends StageError {
  readonly reason: DocumentFailureReason;
  constructor(reason: DocumentFailureReason, message: string, cause?: unknown) {
    super('document', message, cause);
    this.name = 'DocumentError';
    this.reason = reason;
  }
}
