import type { Verdict } from '../acceptors/acceptor.js';
import { startUrlPrefix } from '../acceptors/start-url-prefix.js';
import { reportOf } from '../error-table.js';
import type { Catalog } from '../model.js';
import { parseUserUrl } from '../url/parse-user-url.js';

/** Normalise each url and keep those under the catalog's url (the rule a start url obeys). */
export function scopedSeeds(
  catalog: Catalog,
  urls: readonly unknown[],
): { valid: string[]; refused: Array<{ url: string; reason: string }> } {
  const scope = startUrlPrefix({ catalog });
  const valid: string[] = [];
  const refused: Array<{ url: string; reason: string }> = [];
  for (const raw of urls) {
    if (typeof raw !== 'string') {
      refused.push({ url: String(raw), reason: 'not a url' });
      continue;
    }
    let url: string;
    try {
      url = parseUserUrl(raw, 'url');
    } catch (err) {
      refused.push({ url: raw, reason: reportOf(err).line });
      continue;
    }
    const verdict = scope.check({ url, depth: 0 }) as Verdict;
    if (!verdict.accept) {
      refused.push({ url, reason: `${verdict.outcome}: ${verdict.reason} (not under ${catalog.url})` });
    } else if (!valid.includes(url)) valid.push(url);
  }
  return { valid, refused };
}
