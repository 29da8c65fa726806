import { type Catalog, CrawlerError } from '@greenfinger/core/internal';

/**
 * Why a cluster run of this catalog with this verb is refused, or undefined. A catalog with change feeds
 * (docs/freshness.md#change-feeds) is merged by fetching what its feeds name; a cluster run reads no feed yet (each
 * member would read them, and the members' merges would each judge by a set of their own), so a `merge` on the
 * cluster would revisit every held page as if the catalog had none. It is refused in one line instead; `crawl`,
 * `update` and `rebuild` read no feed on one process either, and run.
 */
export function feedsRefusal(catalog: Catalog, action: string, cluster: string): CrawlerError | undefined {
  const feeds = catalog.settings.changeFeeds ?? [];
  if (action !== 'merge' || feeds.length === 0) return undefined;
  return new CrawlerError(
    'BAD_INPUT',
    `"${catalog.name}" has change feeds (${feeds.join(', ')}), which a cluster run does not read yet: a merge on ` +
      `cluster "${cluster}" would revisit every held page`,
    {
      fix: `merge it on one process (greenfinger merge --name ${catalog.name}), or remove the feeds: greenfinger catalog update ${catalog.name} --change-feed ""`,
    },
  );
}
