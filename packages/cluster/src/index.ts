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
// What a member hears on the control channel (ClusterNode.onCompleted).
export type { ControlMessage } from './plumbing/control-channel.js';
// A cluster's or a member's name, checked as the CLI takes it; the keys a client names the cluster by.
export { type ClusterKeys, checkName } from './plumbing/keys.js';
// A replay on the cluster (ClusterClient.replay): what it asks, its progress and its merged report.
export type { ClusterReplayProgress, ReplayWaitOptions } from './replay/replay-client.js';
export type { ClusterReplayReport, ReplayStarted } from './replay/replay-protocol.js';
export type { ClusterReplayRequest } from './replay/replay-scatter.js';
// A crawl run on the cluster: its merged report, each member's part, the run as announced and the leader's answer.
export type { ClusterRunReport, MemberPart } from './run/cluster-report.js';
// The catalogs' schedules as the leader runs them (`status --cluster` shows its view).
export type { ClusterSchedules } from './run/leader-schedules.js';
export type { ClusterCrawlRequest, PolitenessScope, RunInfo, RunStarted } from './run/run-info.js';
