import type { Logger } from 'pino';
import type { OutputLayer } from '../model.js';
import type { CrawlEngineDeps } from './engine-deps.js';

/** A layer's report on one page: written durably (ok) or given up on. */
export interface LayerWrite {
  layer: OutputLayer;
  ok: boolean;
}

/**
 * The frontier journal's prefixes of the layer writes a stopped run still owes (`j:index:{id}`, `j:vector:{id}`): a
 * run that starts its version's frontier afresh keeps them (`CrawlFrontier.clear({ keepJournal })`), so the next
 * engine writes them from the files.
 */
export const OWED_JOURNAL_PREFIXES: readonly string[] = ['index:', 'vector:'];

/** The journal changes of one commit (`j:` keys of the frontier). */
export interface JournalChanges {
  put: Array<[string, string]>;
  del: string[];
}

interface Owed {
  /** Layers that have not reported the page durable yet. */
  pending: Set<OutputLayer>;
  /** Whether the page's commit has happened (its owed layers are journaled). */
  committed: boolean;
  /** Reports that came before the page's commit: the commit counts them directly. */
  early: LayerWrite[];
}

/**
 * The bookkeeping of layer writes still owed. Index documents and vector points are batched and embedded later
 * than a page is committed, so each saved page is journaled (`j:index:{id}`, `j:vector:{id}`) until its layer
 * reports it durable; a run after a crash writes what is still journaled from the files first.
 */
export class OwedWrites {
  /** Saved pages whose index or vector write is still owed, by resource id. */
  readonly #owed = new Map<string, Owed>();
  /** Layers that reported a committed page durable since the last commit. */
  #durable: Array<LayerWrite & { id: string }> = [];
  readonly #commitSoon: () => void;

  /** `commitSoon` is told when a report waits for a commit to journal it. */
  constructor(commitSoon: () => void) {
    this.#commitSoon = commitSoon;
  }

  /**
   * A later-writing layer made a page durable. Before the page is committed, the commit counts it directly;
   * after, the next commit clears the page's journal entry and counts it — in the same write as the counters.
   */
  onDurable(layer: OutputLayer, id: string, ok: boolean): void {
    const owed = this.#owed.get(id);
    if (owed && !owed.committed) owed.early.push({ layer, ok });
    else {
      this.#durable.push({ layer, id, ok });
      this.#commitSoon();
    }
  }

  /** A page is about to be written: its deferred layers are owed until they report it. */
  expect(resourceId: string, layers: readonly OutputLayer[]): void {
    this.#owed.set(resourceId, { pending: new Set(layers), committed: false, early: [] });
  }

  /** The page was not saved: nothing is owed for it. */
  forget(resourceId: string): void {
    this.#owed.delete(resourceId);
  }

  /** The reports since the last commit, handed to the commit that journals them. */
  takeDurable(): Array<LayerWrite & { id: string }> {
    const durable = this.#durable;
    this.#durable = [];
    return durable;
  }

  /**
   * One commit's share: the pages it saves journal the layers they still owe, the reports it carries clear theirs.
   * Returns the writes the commit counts (indexed, vectored).
   */
  settle(savedIds: readonly string[], durable: ReadonlyArray<LayerWrite & { id: string }>, journal: JournalChanges) {
    const written: LayerWrite[] = [];
    for (const id of savedIds) {
      const owed = this.#owed.get(id);
      if (!owed) continue;
      for (const e of owed.early) {
        owed.pending.delete(e.layer);
        written.push(e);
      }
      owed.committed = true;
      for (const layer of owed.pending) journal.put.push([`${layer}:${id}`, '']);
      if (owed.pending.size === 0) this.#owed.delete(id);
    }
    for (const e of durable) {
      journal.del.push(`${e.layer}:${e.id}`);
      written.push(e);
      const owed = this.#owed.get(e.id);
      owed?.pending.delete(e.layer);
      if (owed && owed.pending.size === 0) this.#owed.delete(e.id);
    }
    return written;
  }

  /** Index and vector writes a killed run still owed (its journal), written again from the files. */
  async repair(
    d: Pick<CrawlEngineDeps, 'catalog' | 'version' | 'frontier' | 'outputs' | 'records' | 'blobs'>,
    log: Logger,
  ): Promise<void> {
    const owed = new Map<string, Set<OutputLayer>>();
    for (const layer of d.outputs.deferredLayers) {
      for await (const [key] of d.frontier.journal(`${layer}:`)) {
        const id = key.slice(layer.length + 1);
        owed.set(id, (owed.get(id) ?? new Set()).add(layer));
      }
    }
    for (const [id, layers] of owed) {
      const resource = await d.records.getResource(id);
      const text = resource ? await d.blobs.getText(resource.textPath) : undefined;
      if (!resource || text === undefined) {
        for (const layer of layers) this.#durable.push({ layer, id, ok: false });
        continue;
      }
      const images = (await d.records.imagesOfResource(id)).map(({ alt, surroundingText, ...row }) => ({
        row,
        alt,
        surroundingText,
      }));
      this.#owed.set(id, { pending: new Set(layers), committed: true, early: [] });
      const page = { catalog: d.catalog, version: d.version, resource, text, images };
      for (const layer of layers) await d.outputs.channel(layer)?.write(page);
    }
    if (owed.size > 0) log.info({ pages: owed.size }, 'writing index and vector entries the interrupted run owed');
  }
}
