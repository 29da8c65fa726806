import { formatStoreProviders, type Greenfinger, storesInUse } from '@greenfinger/core';

/**
 * The stores of this node as `status` and `catalog show` print them: one line per layer with its provider and
 * whether a cluster copies it to every member or shares it, then the embedding provider, model and width.
 */
export async function storesBlock(gf: Greenfinger): Promise<string> {
  const { providers, cluster } = await storesInUse(gf);
  return `stores:\n${formatStoreProviders(providers, cluster)
    .map((line) => `  ${line}\n`)
    .join('')}`;
}
