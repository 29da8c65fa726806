import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkedDocument } from './document-content.js';
import { type DocumentJob, type DocumentWorkerMessage, shortMessage } from './document-job.js';
import { documentParser } from './document-parsers.js';
import { loadPdfjs } from './pdf-parser.js';

/*
 * The document worker process (document-pool.ts forks it): reads the documents sent over its IPC channel one at a
 * time with the built-in parsers and answers each. It ends when its parent goes away (the channel closes).
 */

function isEntry(): boolean {
  try {
    return (
      process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
    );
  } catch {
    return false;
  }
}

if (process.send && isEntry()) {
  const post = (m: DocumentWorkerMessage) => {
    process.send?.(m);
  };
  process.on('message', (job: DocumentJob) => {
    Promise.resolve()
      .then(() => documentParser(job.parser).parse(job.bytes, job.url, job.contentType))
      .then(
        (doc) => post({ type: 'done', id: job.id, doc: checkedDocument(doc) }),
        (err: unknown) => post({ type: 'failed', id: job.id, message: shortMessage(err) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  // pdf.js is loaded before the first job so a job's time is its parsing; a PDF job reports a failed load itself.
  loadPdfjs().then(
    () => post({ type: 'ready' }),
    () => post({ type: 'ready' }),
  );
}
