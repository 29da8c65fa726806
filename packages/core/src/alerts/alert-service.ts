import { randomBytes } from 'node:crypto';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { PublishedRun } from '../compose/publications.js';
import { CrawlerError } from '../errors.js';
import type { Catalog } from '../model.js';
import type { CatalogRef, CatalogService } from '../services/catalog-service.js';
import type { SearchRequest, SearchResponse } from '../services/search-service.js';
import { ALERT_MODES, type AlertMatch, type AlertMode, type AlertRow, type AlertStore } from './alert-store.js';
import { type WebhookDelivery, WebhookSender } from './webhook-sender.js';

/** Pages a saved search reads of its catalog when it runs (its matches among them are kept). */
const SEARCH_DEPTH = 1000;
/** How long `close` waits for deliveries still under way (their own bound is a minute). */
const DRAIN_MS = 65_000;

/** A saved search as `alert add` gives it. */
export interface NewAlert {
  /** Unique in its catalog. @default the query */
  name?: string | undefined;
  query: string;
  /** @default 'words' */
  mode?: AlertMode | undefined;
}

/** A saved search that matched pages of a publishing run, as the webhook payload carries it. */
export interface FiredAlert {
  id: string;
  name: string;
  query: string;
  matches: AlertMatch[];
}

/** The body of a webhook POST (`X-Greenfinger-Event: changes`): a publishing run's change set and fired alerts. */
export interface ChangesPayload {
  event: 'changes';
  catalog: { id: string; name: string };
  version: number;
  runId: string;
  action: string;
  publishedAt: string;
  added: string[];
  changed: Array<{ url: string; diff: string }>;
  removed: string[];
  alerts?: FiredAlert[];
}

/** `alert list`: a catalog's saved searches, its webhooks and the last delivery to each. */
export interface AlertListing {
  catalog: { id: string; name: string };
  alerts: AlertRow[];
  webhooks: Array<{ url: string; lastDelivery: WebhookDelivery | null }>;
}

/** What AlertService needs of the rest: its catalogs, a search, and the composition point's stores. */
export interface AlertServiceDeps {
  factory: ComponentFactory;
  catalogs: () => Promise<CatalogService>;
  search: (req: SearchRequest) => Promise<SearchResponse>;
}

/**
 * Alerts (issue 27 item 6, docs/freshness.md#alerts): saved searches per catalog, and after each publishing run
 * (told through `ComponentFactory.publications`) the run's change set POSTed to the catalog's webhooks with the saved
 * searches that matched a page the run added or changed. The work runs after the run has ended and never holds up
 * the next one; `close` waits (bounded) for deliveries under way.
 */
export class AlertService {
  readonly #d: AlertServiceDeps;
  readonly #pending = new Set<Promise<void>>();
  #deliveryWrites: Promise<void> = Promise.resolve();

  constructor(deps: AlertServiceDeps) {
    this.#d = deps;
  }

  /**
   * Save a search on a catalog.
   * @throws CrawlerError BAD_INPUT naming the field; CONFLICT when the catalog has an alert of that name
   */
  async add(ref: CatalogRef, alert: NewAlert): Promise<AlertRow> {
    const catalog = await (await this.#d.catalogs()).get(ref);
    const query = alert.query?.trim() ?? '';
    const name = alert.name?.trim() || query;
    const mode = alert.mode ?? 'words';
    if (!query) {
      throw new CrawlerError('BAD_INPUT', 'query: an alert needs words to search for', {
        fix: 'give the query in quotes: greenfinger alert add --name CATALOG "words to watch for"',
      });
    }
    if (!(ALERT_MODES as readonly string[]).includes(mode)) {
      throw new CrawlerError('BAD_INPUT', `mode: "${mode}" is not a search mode of alerts`, {
        fix: `use one of ${ALERT_MODES.join(', ')}`,
      });
    }
    const row: AlertRow = {
      id: `al-${randomBytes(5).toString('hex')}`,
      catalogId: catalog.id,
      name,
      query,
      mode,
      createdAt: new Date().toISOString(),
      lastFiredAt: null,
      lastMatches: null,
    };
    await this.#store();
    // Through the one writer of administrative writes (a cluster's leader; docs/freshness.md#saved-searches).
    await this.#d.factory.writer.createAlert(row);
    return row;
  }

  /** A catalog's saved searches, its webhooks and their last deliveries. */
  async list(ref: CatalogRef): Promise<AlertListing> {
    const catalog = await (await this.#d.catalogs()).get(ref);
    const deliveries = await this.deliveries(catalog.id);
    const urls = [...new Set([...(catalog.settings.webhooks ?? []), ...Object.keys(deliveries)])];
    return {
      catalog: { id: catalog.id, name: catalog.name },
      alerts: await (await this.#store()).list(catalog.id),
      webhooks: urls.map((url) => ({ url, lastDelivery: deliveries[url] ?? null })),
    };
  }

  /**
   * Remove a saved search by id (or by its name) from a catalog; without a catalog, by its id from whichever catalog
   * holds it.
   * @throws CrawlerError NOT_FOUND when there is none such
   */
  async remove(ref: CatalogRef | undefined, idOrName: string): Promise<AlertRow> {
    const catalogs = await this.#d.catalogs();
    const store = await this.#store();
    const scope = ref ? [await catalogs.get(ref)] : await catalogs.list();
    for (const catalog of scope) {
      const row = (await store.list(catalog.id)).find((a) => a.id === idOrName || (ref && a.name === idOrName));
      if (row && (await this.#d.factory.writer.deleteAlert(catalog.id, row.id))) return row;
    }
    const named = ref ? scope[0]?.name : undefined;
    throw new CrawlerError(
      'NOT_FOUND',
      named ? `"${named}" has no alert "${idOrName}"` : `no catalog has an alert "${idOrName}"`,
      { fix: `see greenfinger alert list --name ${named ?? 'CATALOG'}` },
    );
  }

  /** The last delivery to each webhook url of a catalog. */
  async deliveries(catalogId: string): Promise<Record<string, WebhookDelivery>> {
    const text = await this.#d.factory.blobs.getText(deliveriesKey(catalogId)).catch(() => undefined);
    if (!text) return {};
    try {
      return JSON.parse(text) as Record<string, WebhookDelivery>;
    } catch {
      return {};
    }
  }

  /** Told by the crawl service after a run published: the alert work starts in the background. */
  published(run: PublishedRun): void {
    const work = this.#afterPublish(run).catch((err: unknown) =>
      this.#d.factory.log.warn({ err, catalogId: run.catalog.id }, 'the alerts of a run failed'),
    );
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /** Wait for the deliveries under way (bounded): a command line process exits after them. */
  async close(): Promise<void> {
    if (this.#pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => {
      timer = setTimeout(r, DRAIN_MS);
    });
    await Promise.race([Promise.allSettled([...this.#pending]), bound]);
    clearTimeout(timer);
  }

  async #afterPublish(run: PublishedRun): Promise<void> {
    const { catalog, changes } = run;
    if (changes.added.length + changes.changed.length + changes.removed.length === 0) return;
    const fired = await this.#fire(catalog, run);
    const webhooks = catalog.settings.webhooks ?? [];
    if (webhooks.length === 0) return;
    const payload: ChangesPayload = {
      event: 'changes',
      catalog: { id: catalog.id, name: catalog.name },
      version: run.version,
      runId: run.runId,
      action: run.action,
      publishedAt: run.publishedAt,
      added: changes.added,
      changed: changes.changed,
      removed: changes.removed,
      ...(fired.length > 0 ? { alerts: fired } : {}),
    };
    const body = JSON.stringify(payload);
    const s = this.#d.factory.settings;
    const sender = new WebhookSender({
      secret: s.webhookSecret,
      allowPrivate: s.webhookAllowPrivate,
      log: this.#d.factory.log.child({ component: 'webhook', catalogId: catalog.id }),
    });
    const done = await Promise.all(webhooks.map((url) => sender.send(url, 'changes', body, run.runId)));
    await this.#recordDeliveries(catalog.id, done);
  }

  /** Run each saved search over the pages the run added or changed; record and return those that matched. */
  async #fire(catalog: Catalog, run: PublishedRun): Promise<FiredAlert[]> {
    const db = await this.#d.factory.database();
    const store = db.alerts;
    if (!store) return [];
    const alerts = await store.list(catalog.id);
    if (alerts.length === 0) return [];
    const touched = new Set([...run.changes.added, ...run.changes.changed.map((c) => c.url)]);
    if (touched.size === 0) return [];
    const fired: FiredAlert[] = [];
    for (const alert of alerts) {
      try {
        const answer = await this.#d.search({
          q: alert.query,
          mode: alert.mode,
          catalogs: [catalog.id],
          size: SEARCH_DEPTH,
        });
        const matches = answer.results
          .filter((hit) => hit.catalogId === catalog.id && touched.has(hit.url))
          .map((hit) => ({ url: hit.url, title: hit.title }));
        if (matches.length === 0) continue;
        await store.fired(alert.id, run.publishedAt, matches);
        fired.push({ id: alert.id, name: alert.name, query: alert.query, matches });
      } catch (err) {
        this.#d.factory.log.warn({ err, alertId: alert.id }, 'a saved search could not run');
      }
    }
    return fired;
  }

  /** Keep the last delivery per webhook url (writes one after another, so two runs' deliveries both stay). */
  #recordDeliveries(catalogId: string, done: WebhookDelivery[]): Promise<void> {
    const write = this.#deliveryWrites.then(async () => {
      const all = await this.deliveries(catalogId);
      for (const d of done) all[d.url] = d;
      await this.#d.factory.blobs.put(deliveriesKey(catalogId), `${JSON.stringify(all, null, 2)}\n`);
    });
    this.#deliveryWrites = write.catch(() => undefined);
    return write;
  }

  async #store(): Promise<AlertStore> {
    const store = (await this.#d.factory.database()).alerts;
    if (!store) {
      throw new CrawlerError('CONFIG', 'this record database keeps no saved searches', {
        fix: 'use the embedded SQLite database or PostgreSQL (DATABASE_URL)',
      });
    }
    return store;
  }
}

/** Where a catalog's last webhook deliveries are kept (beside its versions; they leave with the catalog). */
function deliveriesKey(catalogId: string): string {
  return `assets/${catalogId}/webhooks/deliveries.json`;
}
