import { parentPort } from 'node:worker_threads';
import { checkedDocument } from './document-content.js';
import { type DocumentJob, type DocumentWorkerMessage, shortMessage } from './document-job.js';
import { documentParser } from './document-parsers.js';
import { loadPdfjs } from './pdf-parser.js';

const port = parentPort;
if (port) {
  const post = (m: DocumentWorkerMessage) => port.postMessage(m);
  port.on('message', (job: DocumentJob) => {
    Promise.resolve()
      .then(() => documentParser(job.parser).parse(job.bytes, job.url, job.contentType))
      .then(
        (doc) => post({ type: 'done', id: job.id, doc: checkedDocument(doc) }),
        (err: unknown) => post({ type: 'failed', id: job.id, message: shortMessage(err) }),
      );
  });
  // pdf.js is loaded before the first job so a job's time is its parsing; a PDF job reports a failed load itself.
  loadPdfjs().then(
    () => post({ type: 'ready' }),
    () => post({ type: 'ready' }),
  );
}
