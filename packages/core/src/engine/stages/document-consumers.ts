import type { DocumentConsumer } from '../flow/consumers.js';
import { NEXT, type PageInProgress, type PipelineContext, type Stage } from '../page.js';
import { resourceRow } from './output.js';

async function each(
  ctx: PipelineContext,
  page: PageInProgress,
  call: (c: DocumentConsumer) => void | Promise<void> | undefined,
): Promise<void> {
  for (const consumer of ctx.deps.consumers ?? []) {
    try {
      await call(consumer);
    } catch (err) {
      ctx.log.warn(
        { err, url: page.entry.url, consumer: consumer.name },
        'a document consumer failed; the crawl goes on',
      );
    }
  }
}

function event(page: PageInProgress, ctx: PipelineContext) {
  const d = ctx.deps;
  return { catalogId: d.catalog.id, catalog: d.catalog.name, version: d.version, url: page.entry.url };
}

/** Pre-import consumers (seed 002): the fetched document, just before it is read. Fires DOCUMENT_PREIMPORTED. */
export const preImport: Stage = {
  name: 'pre-import',
  run: async (page, ctx) => {
    const r = page.result;
    await each(ctx, page, (c) =>
      c.preImport?.({
        url: page.entry.url,
        status: r.status,
        contentType: r.contentType,
        headers: r.headers,
        body: r.body,
      }),
    );
    ctx.deps.events?.emit({ name: 'DOCUMENT_PREIMPORTED', ...event(page, ctx), contentType: r.contentType });
    return NEXT;
  },
};

/**
 * Post-import consumers (seed 002): the finished document with its resource row, right before it goes to the
 * output channels. Fires DOCUMENT_POSTIMPORTED.
 */
export const postImport: Stage = {
  name: 'post-import',
  run: async (page, ctx) => {
    page.resource ??= resourceRow(page, ctx);
    const resource = page.resource;
    const { content } = page;
    await each(ctx, page, (c) =>
      c.postImport?.({
        url: page.entry.url,
        title: resource.title,
        text: content.text,
        links: content.links.map((l) => l.url),
        metadata: page.metadata,
        resource,
      }),
    );
    ctx.deps.events?.emit({
      name: 'DOCUMENT_POSTIMPORTED',
      ...event(page, ctx),
      contentType: resource.contentType,
      title: resource.title,
      textChars: content.text.length,
    });
    return NEXT;
  },
};
