import { Greenfinger, type SearchMode, silentLogger } from '@greenfinger/core';

/** Where one member keeps its data: its data root, and the database it records into ('' = SQLite under the root). */
export interface MemberRoot {
  dataStore: string;
  databaseUrl: string;
}

/**
 * What a user of one member's data root sees, through the library on that root — the same search and version
 * services `greenfinger search` and `versions` run there, without a process start per question.
 */
export async function onMember<T>(root: MemberRoot, look: (gf: Greenfinger) => Promise<T>): Promise<T> {
  const gf = await Greenfinger.open({ settings: root, log: silentLogger() });
  try {
    return await look(gf);
  } finally {
    await gf.close();
  }
}

/** The top `size` urls of each query, in order. */
export async function topUrls(gf: Greenfinger, queries: string[], mode: SearchMode = 'words', size = 10) {
  const tops: string[][] = [];
  for (const q of queries) tops.push((await gf.search.search({ q, mode, size })).results.map((x) => x.url));
  return tops;
}
