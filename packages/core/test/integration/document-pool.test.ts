import {
  DOCX_MEDIA_TYPE,
  DocumentError,
  DocumentPool,
  documentParserRegistry,
  PdfDocumentParser,
  StageError,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostilePdf, makeDocx, makePdf } from '../support/documents.js';

const report = makePdf({
  title: 'Pool report',
  subject: 'What the pool read',
  author: 'The gardeners',
  pages: ['Cabbages and kings on the first page.', 'Sealing wax on the second.'],
  links: ['https://garden.test/kings', 'sealing-wax.html'],
});

/** The error a job rejects with (the test fails when it resolves). */
async function failure(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => new Error('expected the document to fail, it was read'),
    (e: unknown) => e as Error,
  );
  expect(err).toBeInstanceOf(Error);
  return err;
}

async function documentFailure(p: Promise<unknown>): Promise<DocumentError> {
  const err = await failure(p);
  expect(err).toBeInstanceOf(DocumentError);
  return err as DocumentError;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Each worker process starts in 1–2 s from TypeScript sources (tsx compiles in it), so the tests share three.
describe('DocumentPool', () => {
  describe('with the default caps', () => {
    let pool: DocumentPool;
    beforeAll(() => {
      pool = new DocumentPool();
    });
    afterAll(async () => {
      await pool.close();
    });

    it('starts no worker until the first document, then parses in it: the content a page gives, plus metadata', async () => {
      expect(pool.pid).toBeUndefined();
      const got = await pool.parse(report, 'https://garden.test/docs/report.pdf', 'application/pdf');
      expect(pool.pid).toBeGreaterThan(0);
      expect(pool.pid).not.toBe(process.pid);
      expect(got).toEqual({
        title: 'Pool report',
        text: 'Cabbages and kings on the first page.\n\nSealing wax on the second.',
        linkDensity: 0,
        links: [
          { url: 'https://garden.test/kings', text: '', nofollow: false },
          { url: 'https://garden.test/docs/sealing-wax.html', text: '', nofollow: false },
        ],
        images: [],
        lang: '',
        canonical: null,
        robots: { noindex: false, nofollow: false },
        description: 'What the pool read',
        metadata: expect.objectContaining({ author: 'The gardeners', pages: '2' }),
        parser: 'pdf',
      });
      // What the parser gives on this thread.
      const here = await new PdfDocumentParser().parse(
        report,
        'https://garden.test/docs/report.pdf',
        'application/pdf',
      );
      expect(got.metadata).toEqual(here.metadata);
    });

    it('parses Word and text documents too, one at a time, answering in the order asked', async () => {
      const order: string[] = [];
      const jobs = [
        pool.parse(
          makeDocx({ title: 'Word one', paragraphs: ['Docx body.'] }),
          'https://g.test/a.docx',
          DOCX_MEDIA_TYPE,
        ),
        pool.parse(Buffer.from('# Markdown two\n\nBody **two**.'), 'https://g.test/b.md', 'text/markdown'),
        pool.parse(report, 'https://g.test/c', 'application/pdf'),
        pool.parse(Buffer.from('a,b\n1,2'), 'https://g.test/d.csv', 'text/csv'),
      ].map((j, i) =>
        j.then((c) => {
          order.push(`${i}:${c.parser}`);
          return c;
        }),
      );
      expect(pool.queued + (pool.busy ? 1 : 0)).toBe(4);
      const [a, b, c, d] = await Promise.all(jobs);
      expect(order).toEqual(['0:docx', '1:text', '2:pdf', '3:text']);
      expect([a!.title, b!.title, c!.title, d!.title]).toEqual(['Word one', 'Markdown two', 'Pool report', 'd']);
      expect(b!.text).toBe('Markdown two\n\nBody two.');
      expect(d!.text).toBe('a · b\n1 · 2');
    });

    it("a parser's throw is 'unreadable' with its message, and the same worker reads the next document", async () => {
      const pid = pool.pid;
      const random = await documentFailure(pool.parse(hostilePdf('random'), 'https://g.test/r.pdf', 'application/pdf'));
      expect(random.reason).toBe('unreadable');
      expect(random.message).toMatch(/not a readable PDF/);
      const cut = await documentFailure(pool.parse(hostilePdf('truncated'), 'https://g.test/t.pdf', 'application/pdf'));
      expect(cut.reason).toBe('unreadable');
      const notZip = await documentFailure(pool.parse(report, 'https://g.test/x.docx', DOCX_MEDIA_TYPE));
      expect(notZip.message).toMatch(/not a zip archive/);
      expect((await pool.parse(report, 'https://g.test/ok.pdf', 'application/pdf')).title).toBe('Pool report');
      expect(pool.pid).toBe(pid);
      expect(pool.workersStarted).toBe(1);
    });
  });

  describe('with a short timeout', () => {
    let pool: DocumentPool;
    beforeAll(() => {
      pool = new DocumentPool({ timeoutMs: 1500 });
    });
    afterAll(async () => {
      await pool.close();
    });

    it("past timeoutMs the worker is killed and replaced ('timeout'); the documents after it are read", async () => {
      // Warm: a document's clock starts once its worker has loaded pdf.js.
      await pool.parse(report, 'https://g.test/warm.pdf', 'application/pdf');
      const first = pool.pid!;
      // 41 KB on the wire, 16 MiB of text operators inside: about 9 s of pdf.js on this machine.
      const bomb = hostilePdf('bomb', { mb: 16 });
      const before = pool.parse(report, 'https://g.test/before.pdf', 'application/pdf');
      const started = performance.now();
      const slow = documentFailure(pool.parse(bomb, 'https://g.test/bomb.pdf', 'application/pdf'));
      const after = pool.parse(report, 'https://g.test/after.pdf', 'application/pdf');
      expect((await before).title).toBe('Pool report');
      const err = await slow;
      const took = performance.now() - started;
      expect(err.reason).toBe('timeout');
      expect(err.message).toMatch(/still parsing after 1500 ms.*worker was stopped/);
      // At least the timeout; the message above says the worker was stopped, not that the bomb (~9 s) ran out.
      expect(took).toBeGreaterThanOrEqual(1400);
      expect((await after).title).toBe('Pool report');
      expect(pool.pid).toBeDefined();
      expect(pool.pid).not.toBe(first);
      expect(alive(first)).toBe(false);
      expect(pool.workersStarted).toBe(2);
    });

    it('close() kills the worker, rejects what it held (not as the documents’ fault), refuses new documents', async () => {
      const busy = pool.parse(hostilePdf('bomb', { mb: 16 }), 'https://g.test/bomb.pdf', 'application/pdf');
      const queued = pool.parse(report, 'https://g.test/queued.pdf', 'application/pdf');
      const settled = [busy, queued].map((job) => failure(job));
      for (const until = Date.now() + 30_000; !pool.busy && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(pool.busy).toBe(true);
      const pid = pool.pid!;
      // The bomb takes ~9 s: close() ending it is seen below (rejected as the crawl's doing, the process gone).
      await pool.close();
      for (const err of await Promise.all(settled)) {
        // Closing is the crawl's doing, not the document's: not a DocumentError (so not REJECTED_IMPORT).
        expect(err).toBeInstanceOf(StageError);
        expect(err).not.toBeInstanceOf(DocumentError);
        expect(err.message).toMatch(/the document pool was closed/);
      }
      expect(pool.pid).toBeUndefined();
      expect(alive(pid)).toBe(false);
      await expect(pool.parse(report, 'https://g.test/late.pdf', 'application/pdf')).rejects.toThrow(/pool is closed/);
    });
  });

  it("a worker that runs out of heap fails its document as 'unreadable', is replaced, and stops when idle", async () => {
    // 160 MiB: enough for a worker running from TypeScript sources (tsx) to start, not for an array of 16 million
    // numbers. The same document in a worker thread with a 160 MiB resourceLimits aborted this whole process.
    await using pool = new DocumentPool({ memoryMb: 160, idleMs: 400 });
    const err = await documentFailure(
      pool.parse(hostilePdf('huge-array', { mb: 32 }), 'https://g.test/oom.pdf', 'application/pdf'),
    );
    expect(err.reason).toBe('unreadable');
    expect(err.message).toMatch(/out of memory \(160 MiB heap\)/);
    expect((await pool.parse(report, 'https://g.test/ok.pdf', 'application/pdf')).title).toBe('Pool report');
    expect(pool.workersStarted).toBe(2);
    // Idle for idleMs: the worker is stopped, its memory given back.
    const pid = pool.pid!;
    for (let i = 0; i < 50 && pool.pid !== undefined; i++) await new Promise((r) => setTimeout(r, 100));
    expect(pool.pid).toBeUndefined();
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });

  it('refuses a document over maxBytes and an answer no parser reads before any work', async () => {
    await using pool = new DocumentPool({ maxBytes: 1000 });
    const tooLarge = await documentFailure(
      pool.parse(Buffer.alloc(1500, 0x41), 'https://g.test/big.txt', 'text/plain'),
    );
    expect(tooLarge.reason).toBe('too-large');
    expect(tooLarge.message).toMatch(/over the .* document cap \(GF_DOCUMENT_MAX_MB\)/);
    const html = await documentFailure(pool.parse(Buffer.from('<p>hi</p>'), 'https://g.test/a.pdf', 'text/html'));
    expect(html.reason).toBe('unreadable');
    expect(html.message).toMatch(/no document parser reads text\/html/);
    expect(pool.workersStarted).toBe(0);
  });

  it('runs a parser a library user registered on the calling thread, under the same caps', async () => {
    documentParserRegistry.register('shout-test', () => ({
      name: 'shout-test',
      mediaTypes: ['text/x-shout', 'text/x-hang', 'text/x-throw'],
      extensions: ['.shout'],
      async parse(bytes, _url, contentType) {
        if (contentType === 'text/x-throw') throw new Error('cannot shout this');
        if (contentType === 'text/x-hang') await new Promise(() => undefined);
        return {
          title: 'LOUD',
          text: Buffer.from(bytes).toString().toUpperCase(),
          links: [],
          metadata: { pid: process.pid },
          lang: 'en',
        };
      },
    }));
    await using pool = new DocumentPool({ timeoutMs: 300, maxBytes: 100 });
    const got = await pool.parse(Buffer.from('hello'), 'https://g.test/a.shout', 'text/x-shout');
    expect(got).toMatchObject({
      title: 'LOUD',
      text: 'HELLO',
      parser: 'shout-test',
      metadata: { pid: String(process.pid) },
    });
    const thrown = await documentFailure(pool.parse(Buffer.from('x'), 'https://g.test/b', 'text/x-throw'));
    expect([thrown.reason, thrown.message]).toEqual(['unreadable', 'document: cannot shout this']);
    expect((await documentFailure(pool.parse(Buffer.from('x'), 'https://g.test/c', 'text/x-hang'))).reason).toBe(
      'timeout',
    );
    expect((await documentFailure(pool.parse(Buffer.alloc(101), 'https://g.test/d', 'text/x-shout'))).reason).toBe(
      'too-large',
    );
    expect(pool.workersStarted).toBe(0);
  });
});
