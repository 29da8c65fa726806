/**
 * The cluster's public entry: what the shell (or a library user) starts a member with and talks to a cluster
 * through. The rest — the Redis scripts and wire formats, the replicated channels, the leader's operations, the
 * run's routing — is this package's own: its tests import those files directly.
 */

// The one-line administrative verbs with `--cluster`: written by the leader, then into the caller's own database.
export { openRemoteAdmin, type RemoteAdmin } from './admin/remote-admin.js';
// A caller outside the members: status, crawl, stop, resume and replay with `--cluster`.
export { ClusterClient, type ClusterStatus, type MemberStatus } from './cluster-client.js';
// Core's CrawlRunner seam on a cluster: the crawl verbs sent to the leader and followed to the merged report.
export { ClusterCrawlRunner, type ClusterCrawlRunnerOptions } from './cluster-crawl-runner.js';
// A member process (`greenfinger node`, `serve --cluster`, `shell --cluster`).
export { ClusterNode, type ClusterNodeOptions } from './cluster-node.js';
export type { ControlMessage } from './plumbing/control-channel.js';
// A cluster's or a member's name, checked as the CLI takes it; its keys, a connection to its Redis, and the run in
// progress as `run:current` holds it (the CLI's crawl runner reads the run's catalog row there).
export { ClusterKeys, checkName } from './plumbing/keys.js';
export { closeRedis, connectRedis } from './plumbing/redis-connection.js';
export type { ClusterReplayProgress, ReplayWaitOptions } from './replay/replay-client.js';
export type { ClusterReplayReport, ReplayStarted } from './replay/replay-protocol.js';
export type { ClusterReplayRequest } from './replay/replay-scatter.js';
export type { ClusterRunReport, MemberPart } from './run/cluster-report.js';
export type { ClusterCrawlRequest, PolitenessScope, RunInfo, RunStarted } from './run/run-info.js';
export { currentRun } from './run/run-supervisor.js';
