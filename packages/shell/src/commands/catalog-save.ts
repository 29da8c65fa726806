import {
  CATALOG_CATS,
  type Catalog,
  CrawlerError,
  defaultCatalogSettings,
  folderCatalogName,
  isFileUrl,
  reportOf,
} from '@greenfinger/core/internal';
import { type CommandContext, type CommandSpec, defineCommand, type OptionSpec } from '../command-spec.js';
import { EXIT } from '../io.js';
import { formatCatalog } from './catalog.js';
import { SETTINGS_OPTIONS, type SettingsOptions, settingsOf } from './options.js';

interface SaveOptions {
  id?: string;
  name?: string;
  json?: string;
  print?: boolean;
}

/** One question of the interview: the option it answers (its parser checks the answer) and its default. */
interface Question {
  key: string;
  ask: string;
  flag?: string;
  /** The default shown, from the catalog being edited or the defaults. */
  value(c: Draft): string;
  /** Check the answer and store it; throws with the same message as the flag. */
  set(c: Draft, answer: string): void;
}

interface Draft {
  url: string;
  name: string;
  startUrl: string;
  cat: string;
  options: SettingsOptions & Record<string, unknown>;
  current: Catalog['settings'];
}

const option = (flag: string): OptionSpec => {
  const o = SETTINGS_OPTIONS.find((x) => x.flags.startsWith(`${flag} `) || x.flags === flag);
  if (!o) throw new Error(`no option ${flag}`);
  return o;
};

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A setting asked for with its flag's parser: the answer is checked exactly as the flag's value is. */
function setting(flag: string, ask: string, current: (s: Catalog['settings']) => unknown): Question {
  const o = option(flag);
  const key = camel(flag);
  return {
    key,
    ask,
    flag,
    value: (d) => {
      const v = d.options[key] ?? current(d.current);
      return Array.isArray(v) ? v.join(',') : String(v ?? '');
    },
    set: (d, answer) => {
      d.options[key] = o.parse ? (o.parse as (v: string, p: unknown) => unknown)(answer, undefined) : answer;
    },
  };
}

function yesNo(flag: string, ask: string, current: (s: Catalog['settings']) => boolean): Question {
  const key = camel(flag);
  return {
    key,
    ask,
    flag: `--${flag.replace(/^--/, '')}`,
    value: (d) => ((d.options[key] ?? current(d.current)) ? 'yes' : 'no'),
    set: (d, answer) => {
      if (!/^(y|yes|n|no)$/i.test(answer)) throw new Error(`${flag}: answer yes or no, got "${answer}"`);
      d.options[key] = /^y/i.test(answer);
    },
  };
}

const QUESTIONS: Question[] = [
  {
    key: 'url',
    ask: 'url (identity and boundary)',
    flag: '--url',
    value: (d) => d.url,
    set: (d, a) => {
      d.url = a;
      d.name ||= '';
    },
  },
  {
    key: 'name',
    ask: 'name',
    flag: '--name',
    value: (d) => d.name || hostOf(d.url),
    set: (d, a) => {
      d.name = a;
    },
  },
  {
    key: 'cat',
    ask: `cat (${CATALOG_CATS.join(', ')})`,
    value: (d) => d.cat,
    set: (d, a) => {
      if (!(CATALOG_CATS as readonly string[]).includes(a))
        throw new Error(`cat: "${a}" is not a category — use one of ${CATALOG_CATS.join(', ')}`);
      d.cat = a;
    },
  },
  {
    key: 'startUrl',
    ask: 'start url (under the url)',
    flag: '--start-url',
    value: (d) => d.startUrl || d.url,
    set: (d, a) => {
      d.startUrl = a;
    },
  },
  yesNo('--sitemap', 'read the sitemap', (s) => s.sitemap),
  setting('--include', 'include (path globs, comma list)', (s) => s.include),
  setting('--exclude', 'exclude (path globs, comma list)', (s) => s.exclude),
  setting('--content-extractor', 'content extractor (html or readability)', (s) => s.contentExtractor),
  setting('--max-pages', 'max pages (≥ 1)', (s) => s.maxPages),
  setting('--depth', 'depth (-1 = unlimited)', (s) => s.depth),
  setting('--duration', 'duration in minutes', (s) => s.durationMinutes),
  setting('--interval', 'interval between requests to one host, ms (≥ 0)', (s) => s.intervalMs),
  setting('--max-retries', 'retries (≥ 0)', (s) => s.maxRetries),
  yesNo('--images', 'keep pictures', (s) => s.images),
  setting('--outputs', 'outputs (file+index+vector, file is always on)', (s) => s.outputs.join('+')),
  setting('--max-versions', 'max versions (≥ 1)', (s) => s.maxVersions),
];

const START = ['no', 'crawl', 'update', 'rebuild'];

/** The name a new catalog gets by default: the site's host, or a folder's own name. */
function hostOf(url: string): string {
  try {
    return isFileUrl(url) ? folderCatalogName(url) : new URL(url).host;
  } catch {
    return '';
  }
}

/** `catalog-save`: the interview, or a JSON patch; creates the catalog, or changes the one named. */
export const CATALOG_SAVE_COMMAND = defineCommand<SaveOptions>({
  prompt: 'catalog-save',
  summary: 'Create or change a catalog: an interview field by field, or a JSON patch with --json.',
  options: [
    { flags: '--id <id>', description: 'change the catalog with this id (default: a new one)' },
    { flags: '--name <name>', description: 'change the catalog with this name (default: a new one)' },
    {
      flags: '--json <patch>',
      description:
        'a JSON patch instead of the interview: {"url", "name", "startUrl", "settings": {…}} (settings keys as catalog-show --json shows them)',
    },
    { flags: '--print', description: 'print the saved catalog as one JSON document' },
  ],
  details:
    'The interview asks each field with its default in brackets: Return keeps it, cancel (or Ctrl-D, or Ctrl-C)\n' +
    'abandons and saves nothing. Each answer is checked as the flag is (--max-pages must be a whole number ≥ 1,\n' +
    '…) and asked again when wrong. The last question is "start now?": no, crawl, update or rebuild (in the\n' +
    'background, as the crawl verbs start). The interview needs a terminal; a script passes --json.',
  examples: [
    'catalog-save',
    'catalog-save --name docs',
    'catalog-save --json \'{"url":"http://127.0.0.1:8084/","name":"python","settings":{"maxPages":100}}\'',
  ],
  promptExamples: [
    'catalog-save                 # the interview',
    'catalog-save --name docs     # the interview over an existing catalog',
    'catalog-save --json \'{"url":"http://127.0.0.1:8084/","name":"python","settings":{"maxPages":100}}\'',
  ],
  run: async (ctx, _args, opts) => {
    const gf = await ctx.gf();
    const catalogs = await gf.catalogs();
    const existing = opts.id || opts.name ? await catalogs.get({ id: opts.id, name: opts.name }) : undefined;
    if (typeof opts.json === 'string') {
      const patch = parsePatch(opts.json);
      const named = existing ?? (patch.name ? await catalogs.find({ name: patch.name }) : undefined);
      const saved = named
        ? await catalogs.update(named.id, patch)
        : await catalogs.create({ ...patch, url: requireUrl(patch.url) });
      ctx.io.out(
        opts.print ? `${JSON.stringify(saved)}\n` : `${named ? 'updated' : 'created'} ${formatCatalog(saved)}`,
      );
      return EXIT.ok;
    }
    if (!ctx.session?.interactive) {
      throw new CrawlerError('BAD_INPUT', 'the catalog-save interview needs a terminal', {
        fix: `pass the catalog as a patch: catalog-save --json '{"url":"https://docs.example.com/"}'`,
      });
    }
    return interview(ctx, existing);
  },
}) satisfies CommandSpec;

function requireUrl(url: string | undefined): string {
  if (!url) throw new CrawlerError('BAD_INPUT', 'a new catalog needs a url', { fix: 'add "url" to the patch' });
  return url;
}

function parsePatch(text: string): {
  url?: string;
  name?: string;
  startUrl?: string;
  settings?: Record<string, unknown>;
} {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CrawlerError('BAD_INPUT', `--json is not JSON: ${(err as Error).message}`, {
      fix: `quote it whole: catalog-save --json '{"url":"https://docs.example.com/"}'`,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CrawlerError('BAD_INPUT', '--json must be an object', {
      fix: 'e.g. {"url":"https://docs.example.com/"}',
    });
  }
  const { url, name, startUrl, settings, ...rest } = value as Record<string, unknown>;
  const str = (v: unknown, key: string) => {
    if (v === undefined || typeof v === 'string') return v;
    throw new CrawlerError('BAD_INPUT', `--json: "${key}" must be a string`, { fix: 'quote it' });
  };
  return {
    url: str(url, 'url'),
    name: str(name, 'name'),
    startUrl: str(startUrl, 'startUrl'),
    // Settings may come nested or flat: {"settings":{"maxPages":5}} or {"maxPages":5}.
    settings: { ...rest, ...((settings as Record<string, unknown>) ?? {}) },
  } as { url?: string; name?: string; startUrl?: string; settings?: Record<string, unknown> };
}

async function interview(ctx: CommandContext, existing: Catalog | undefined): Promise<number> {
  const session = ctx.session;
  const { io } = ctx;
  if (!session) return EXIT.usage;
  const draft: Draft = {
    url: existing?.url ?? '',
    name: existing?.name ?? '',
    startUrl: existing?.startUrl ?? '',
    cat: existing?.settings.cat ?? 'other',
    options: {},
    current: { ...defaultCatalogSettings, ...existing?.settings },
  };
  io.out(
    `${existing ? `changing catalog "${existing.name}"` : 'a new catalog'}: Return keeps the value in brackets, cancel abandons\n`,
  );
  const catalogs = await (await ctx.gf()).catalogs();
  for (const q of QUESTIONS) {
    for (;;) {
      const shown = q.value(draft);
      const answer = await session.ask(`${q.ask} [${shown}]: `);
      if (answer === undefined || answer.trim().toLowerCase() === 'cancel') {
        io.out('abandoned: nothing saved\n');
        return EXIT.interrupted;
      }
      const a = answer.trim() || shown;
      if (q.key === 'url' && a === '') {
        io.out('  a catalog needs a url, e.g. https://docs.example.com/\n');
        continue;
      }
      try {
        q.set(draft, a);
        if (q.key === 'url' || q.key === 'startUrl')
          catalogs.build({ url: draft.url, startUrl: draft.startUrl || undefined });
        break;
      } catch (err) {
        io.out(`  ${reportOf(err).line}\n`);
      }
    }
  }
  let start = 'no';
  for (;;) {
    const answer = await session.ask(`start now? (${START.join(', ')}) [no]: `);
    if (answer === undefined || answer.trim().toLowerCase() === 'cancel') {
      io.out('abandoned: nothing saved\n');
      return EXIT.interrupted;
    }
    start = answer.trim().toLowerCase() || 'no';
    if (START.includes(start)) break;
    io.out(`  answer one of ${START.join(', ')}\n`);
  }
  const settings = { ...settingsOf(draft.options), cat: draft.cat } as Partial<Catalog['settings']>;
  const def = { url: draft.url, startUrl: draft.startUrl || undefined, name: draft.name || undefined, settings };
  const saved = existing ? await catalogs.update(existing.id, def) : await catalogs.create(def);
  io.out(`${existing ? 'updated' : 'created'} ${formatCatalog(saved)}`);
  if (start === 'no') return EXIT.ok;
  return session.run(`${start} --id ${saved.id}`);
}
