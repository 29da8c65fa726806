import { join } from 'node:path';
import { silentLogger } from '@greenfinger/core';
import { ClusterNode, type ClusterNodeOptions } from '../../src/cluster-node.js';
import { type TestCluster, testRedisUrl } from './redis.js';

/**
 * Members in this process, one after another (the first leads), each on its own data root `<root>/<name>` with one
 * extraction worker; `options` adds settings (a shared database, a test model) and options (the politeness scope).
 */
export async function startMembers(
  cluster: TestCluster,
  root: string,
  names: readonly string[],
  options: Partial<Omit<ClusterNodeOptions, 'cluster' | 'nodeName' | 'dataRoot'>> = {},
): Promise<ClusterNode[]> {
  const nodes: ClusterNode[] = [];
  for (const name of names) {
    nodes.push(
      await ClusterNode.start({
        redisUrl: testRedisUrl,
        log: silentLogger(),
        ...options,
        settings: { workers: 1, ...options.settings },
        cluster: cluster.name,
        nodeName: name,
        dataRoot: join(root, name),
      }),
    );
  }
  return nodes;
}
