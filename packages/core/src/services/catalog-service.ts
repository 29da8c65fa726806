import { existsSync } from 'node:fs';
import type { Verdict } from '../acceptors/acceptor.js';
import { startUrlPrefix } from '../acceptors/start-url-prefix.js';
import type { AdminWriter } from '../admin/admin-writer.js';
import { registries } from '../compose/registries.js';
import { resolveCatalogSettings } from '../config.js';
import { ConfigError, CrawlerError } from '../errors.js';
import { ids, isUuid } from '../ids.js';
import type { Catalog, CatalogRef, CatalogSettings } from '../model.js';
import type { CatalogStore } from '../storage/record-store.js';
import { filePathOf, folderCatalogName, isFileUrl } from '../url/file-url.js';
import { parseUserUrl } from '../url/parse-user-url.js';
import { scopedSeeds } from './job-seeds.js';

export type { CatalogRef } from '../model.js';

/** What a crawl verb names: a catalog, and for `crawl` what a new one is made of. */
export interface CatalogRequest extends CatalogRef {
  startUrl?: string | undefined;
  settings?: Partial<CatalogSettings> | undefined;
}

export interface CatalogDefinition {
  url: string;
  startUrl?: string | undefined;
  name?: string | undefined;
  settings?: Partial<CatalogSettings> | undefined;
}

/**
 * Catalogs as first-class objects: create, update, resolve, list, delete the definition. Reads go to the catalog
 * store; every write goes through the administrative writer.
 */
export class CatalogService {
  readonly #store: CatalogStore;
  readonly #writer: AdminWriter;

  constructor(store: CatalogStore, writer: AdminWriter) {
    this.#store = store;
    this.#writer = writer;
  }

  /** Validate a definition into a catalog (not stored). */
  build(def: CatalogDefinition, existing?: Catalog): Catalog {
    const url = parseUserUrl(def.url, '--url');
    const startUrl = def.startUrl ? parseUserUrl(def.startUrl, '--start-url') : url;
    // A catalog of a folder is named after the folder (`file:///srv/Team Docs/` → `Team Docs`), a site after its host
    // and path, so two catalogs of one host do not take the same name (`docs.python.org-3`).
    const name = (
      def.name ??
      existing?.name ??
      (isFileUrl(url) ? folderCatalogName(url) : siteCatalogName(url))
    ).trim();
    if (!/^[\p{L}\p{N}._:-][\p{L}\p{N} ._:-]{0,99}$/u.test(name)) {
      throw new ConfigError(
        '--name',
        `"${name}" is not a usable catalog name`,
        'use letters, digits, spaces, dots, dashes or colons (at most 100)',
      );
    }
    const given = Object.fromEntries(Object.entries(def.settings ?? {}).filter(([, v]) => v !== undefined));
    const settings = resolveCatalogSettings({ ...existing?.settings, ...given });
    const now = new Date().toISOString();
    const catalog: Catalog = {
      id: existing?.id ?? ids.catalog(),
      name,
      url,
      startUrl,
      settings,
      indexVersion: existing?.indexVersion ?? 0,
      searchVersion: existing?.searchVersion ?? -1,
      runningState: existing?.runningState ?? 'none',
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    assertComponentNames(settings);
    const verdict = startUrlPrefix({ catalog }).check({ url: startUrl, depth: 0 }) as Verdict;
    if (!verdict.accept) {
      throw new ConfigError(
        '--start-url',
        `${startUrl} is not under --url ${url}`,
        'the url is the identity and the boundary of a catalog and the start url must sit under it; ' +
          'pointing --url deep into a site puts the rest out of scope, the usual reason a crawl saves exactly one page — ' +
          (isFileUrl(url)
            ? 'give --url the folder and --start-url a file or folder inside it'
            : 'give --url the site root (e.g. ' + new URL(url).origin + '/) and --start-url the page to begin at'),
      );
    }
    checkSeedUrls(catalog);
    return catalog;
  }

  async create(def: CatalogDefinition): Promise<Catalog> {
    const catalog = this.build(def);
    assertLocalPath(catalog.url);
    if (await this.#store.findByName(catalog.name)) {
      throw new CrawlerError('CONFLICT', `a catalog named "${catalog.name}" already exists`, {
        fix: 'pick another --name, or name the existing one with --name to crawl it again',
      });
    }
    return this.#writer.createCatalog(catalog);
  }

  async update(id: string, def: Partial<CatalogDefinition>): Promise<Catalog> {
    const existing = await this.get({ id });
    const catalog = this.build(
      {
        url: def.url ?? existing.url,
        startUrl: def.startUrl ?? existing.startUrl,
        name: def.name,
        settings: def.settings,
      },
      existing,
    );
    if (catalog.name !== existing.name) {
      const clash = await this.#store.findByName(catalog.name);
      if (clash && clash.id !== catalog.id)
        throw new CrawlerError('CONFLICT', `a catalog named "${catalog.name}" already exists`, {
          fix: 'pick another --name',
        });
    }
    return this.#writer.updateDefinition(catalog.id, catalog);
  }

  /**
   * The catalog a `crawl` names, created from `url` when none has it; settings given are stored on it.
   * @throws CrawlerError CONFLICT when `name` has another url, BAD_INPUT when nothing names a catalog
   */
  async resolve(req: CatalogRequest): Promise<{ catalog: Catalog; created: boolean }> {
    if (req.id) return { catalog: await this.#applySettings(await this.get({ id: req.id }), req), created: false };
    if (req.name) {
      const byName = await this.find({ name: req.name });
      if (byName) {
        if (req.url && parseUserUrl(req.url, '--url') !== byName.url) {
          throw new CrawlerError('CONFLICT', `catalog "${req.name}" has url ${byName.url}, not ${req.url}`, {
            fix: 'drop --url to crawl it, or choose another --name for a new catalog',
          });
        }
        return { catalog: await this.#applySettings(byName, req), created: false };
      }
      if (!req.url) return { catalog: await this.get({ name: req.name }), created: false };
    }
    if (!req.url) {
      throw new CrawlerError('BAD_INPUT', 'no catalog named', {
        fix: 'give --url <site> (creates it) or --id / --name of an existing catalog',
      });
    }
    if (!req.name) {
      const byUrl = await this.find({ url: req.url });
      if (byUrl) {
        if (req.startUrl && parseUserUrl(req.startUrl, '--start-url') !== byUrl.startUrl) {
          return {
            catalog: await this.update(byUrl.id, { startUrl: req.startUrl, settings: req.settings }),
            created: false,
          };
        }
        return { catalog: await this.#applySettings(byUrl, req), created: false };
      }
    }
    const catalog = await this.create({ url: req.url, startUrl: req.startUrl, name: req.name, settings: req.settings });
    return { catalog, created: true };
  }

  /** The catalog a verb other than `crawl` names (it must exist); settings given are stored on it. */
  async existing(req: CatalogRequest): Promise<{ catalog: Catalog; created: false }> {
    const catalog = await this.get({ id: req.id, name: req.name, url: req.id || req.name ? undefined : req.url });
    return { catalog: await this.#applySettings(catalog, req), created: false };
  }

  async #applySettings(catalog: Catalog, req: CatalogRequest): Promise<Catalog> {
    if (!req.settings || Object.values(req.settings).every((v) => v === undefined)) return catalog;
    return this.update(catalog.id, { settings: req.settings });
  }

  /** Store a catalog row as it is (its versions or running state), through the administrative writer. */
  async save(catalog: Catalog): Promise<void> {
    await this.#writer.saveCatalog(catalog);
  }

  /** Find by id, name or url; throws NOT_FOUND naming what was asked. */
  async get(ref: CatalogRef): Promise<Catalog> {
    const found = await this.find(ref);
    if (!found) {
      const what = ref.id ? `id ${ref.id}` : ref.name ? `name "${ref.name}"` : `url ${ref.url}`;
      throw new CrawlerError('NOT_FOUND', `no catalog with ${what}`, {
        fix: 'run `greenfinger catalogs` to list them, or crawl --url <site> to create one',
      });
    }
    return found;
  }

  async find(ref: CatalogRef): Promise<Catalog | undefined> {
    const given = [ref.id, ref.name, ref.url].filter((v) => v !== undefined && v !== '');
    if (given.length !== 1)
      throw new ConfigError('--id/--name/--url', 'name exactly one catalog', 'give one of --id, --name or --url');
    if (ref.id) {
      if (!isUuid(ref.id))
        throw new ConfigError(
          '--id',
          `"${ref.id}" is not a catalog id (a 36-character UUID)`,
          'to name a catalog by its name use --name',
        );
      return this.#store.get(ref.id);
    }
    if (ref.name) return this.#store.findByName(ref.name);
    const url = parseUserUrl(ref.url as string, '--url');
    const matches = await this.#store.findByUrl(url);
    if (matches.length > 1) {
      throw new CrawlerError(
        'CONFLICT',
        `${matches.length} catalogs have url ${url}: ${matches.map((c) => c.name).join(', ')}`,
        { fix: 'name one with --name or --id' },
      );
    }
    return matches[0];
  }

  list(): Promise<Catalog[]> {
    return this.#store.list();
  }

  async delete(id: string): Promise<boolean> {
    return this.#writer.deleteCatalog(id);
  }
}

/** The components a catalog names must be registered. @throws ConfigError naming the field and the known names */
function assertComponentNames(settings: CatalogSettings): void {
  registries.fetcher.assert(settings.fetcher);
  registries.extractor.assert(settings.extractor);
  registries.contentExtractor.assert(settings.contentExtractor);
  for (const name of settings.acceptors) registries.acceptors.assert(name);
  if (settings.contentDedup) registries.contentDedup.assert(settings.contentDedup);
}

/**
 * A new catalog of a folder must name one that is there: a typo is one line now rather than a crawl that saves
 * nothing. (A stored catalog whose folder went away can still be updated, crawled — everything 404 — and deleted.)
 * @throws ConfigError `--url` when the path does not exist
 */
function assertLocalPath(url: string): void {
  if (!isFileUrl(url)) return;
  const path = filePathOf(url);
  if (path !== undefined && existsSync(path)) return;
  throw new ConfigError('--url', `${url}: no such folder or file (${path ?? 'no local path'})`, FILE_URL_FIX);
}

const FILE_URL_FIX = 'give the absolute path of an existing folder, e.g. file:///srv/docs/ or /srv/docs';

/**
 * The catalog's further start references (`--start-url` given more than once, `seedUrls`) obey the rule of the start
 * url: each sits under the catalog's url. They are kept normalised.
 * @throws ConfigError naming the first one that does not
 */
function checkSeedUrls(catalog: Catalog): void {
  if (catalog.settings.seedUrls.length === 0) return;
  const { valid, refused } = scopedSeeds(catalog, catalog.settings.seedUrls);
  const first = refused[0];
  if (first) {
    throw new ConfigError(
      '--start-url',
      `${first.url} is not a start url of ${catalog.url}: ${first.reason}`,
      'give start urls under --url',
    );
  }
  catalog.settings = { ...catalog.settings, seedUrls: valid };
}

/**
 * A site's catalog name: its host, and its folder when the catalog is a part of the site (`127.0.0.1:8080-docs-v2`).
 * A page's own file name is not part of it: `http://h/index.html` is the site `h`, `http://h/docs/index.html` is `h-docs`.
 */
function siteCatalogName(url: string): string {
  const u = new URL(url);
  const folder = u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1);
  const path = folder.replace(/[^\p{L}\p{N}._:]+/gu, '-').replace(/^-+|-+$/g, '');
  return `${u.host}${path ? `-${path}` : ''}`.slice(0, 100).replace(/[ -]+$/, '');
}
