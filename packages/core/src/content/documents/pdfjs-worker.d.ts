/** pdf.js's worker module ships without declarations; the pdf parser only hands it to pdf.js (globalThis.pdfjsWorker). */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
