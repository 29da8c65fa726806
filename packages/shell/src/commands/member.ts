import type { ClusterNode } from '@greenfinger/cluster';
import { checkName } from '@greenfinger/cluster/names';
import type { Logger } from '@greenfinger/core';
import type { OptionSpec } from '../command-spec.js';
import { clusterOption } from './cluster.js';

/** `--cluster NAME` and `--node-name NAME` of `serve` and `shell`: the process runs as a member of the cluster. */
export function memberOptions(what: string): OptionSpec[] {
  return [
    clusterOption(what),
    {
      flags: '--node-name <name>',
      description: 'with --cluster: its name among the members (default GF_NODE, else the host name)',
      parse: (v: string) => checkName('--node-name', v),
      cliOnly: true,
    },
  ];
}

/**
 * Join the cluster as a member on this data root: its reads answer from its own stores, its administrative writes go
 * to the leader, its jobs' crawl verbs run on the cluster, and it takes its share of every run.
 */
export async function startMember(
  opts: { cluster: string; nodeName?: string | undefined; data?: string | undefined },
  log: Logger,
): Promise<ClusterNode> {
  const { ClusterNode } = await import('@greenfinger/cluster');
  return ClusterNode.start({ cluster: opts.cluster, nodeName: opts.nodeName, dataRoot: opts.data, log });
}
