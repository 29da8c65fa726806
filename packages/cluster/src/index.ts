export { mirrorWrite, upsertCatalog } from './admin-mirror.js';
export { blobReplicaConsumer, isPerNodeBlobStore, replicatedBlobs } from './blob-replica.js';
export { CATALOG_ROWS_OP, type CatchUp, catalogRows, catchUpCatalogs } from './catalog-catch-up.js';
export { ADMIN_OPS, type AdminRouting, ClusterAdminWriter } from './cluster-admin-writer.js';
export { ClusterClient, type ClusterStatus, type MemberStatus } from './cluster-client.js';
export { ClusterContentDedup, CONTENT_TTL_SECONDS } from './cluster-content-dedup.js';
export { type ClusterCoordinatorOptions, ClusterCrawlCoordinator } from './cluster-crawl-coordinator.js';
export { ClusterCrawlRunner, type ClusterCrawlRunnerOptions } from './cluster-crawl-runner.js';
export { type ClusterCrawlRequest, ClusterNode, type ClusterNodeOptions, type RunStarted } from './cluster-node.js';
export { type ClusterRunReport, type MemberPart, mergeReports } from './cluster-report.js';
export { ControlChannel, type ControlMessage, type ControlType, decodeControl } from './control-channel.js';
export { CrawlStreams, GROUP, type StreamEntry } from './crawl-stream.js';
export { type AnnouncerOptions, announcingWriter, pruneDeletion, prunedBy } from './deletion-announcer.js';
export { DeletionFollower, type DeletionFollowerOptions } from './deletion-follower.js';
export {
  announceDeletion,
  DELETIONS_KEPT,
  type Deletion,
  decodeDeletion,
  type LoggedDeletion,
  newestDeletion,
  oldestDeletion,
  readDeletions,
} from './deletion-log.js';
export { HashRing } from './hash-ring.js';
export { ClusterKeys, checkName, RunKeys } from './keys.js';
export { LeaderGateway, type LeaderHandler, type LeaderRequest } from './leader-gateway.js';
export { LeaderLease, type LeaseHolder } from './leader-lease.js';
export { LuaScript } from './lua-script.js';
export { type MemberInfo, Membership, type MembershipChange } from './membership.js';
export {
  type BinaryItem,
  FrameConsumer,
  FrameSender,
  framesCaughtUp,
  MAX_FRAME_BYTES,
  trimFrames,
} from './multicast-frames.js';
export { closeRedis, connectRedis, maskRedisUrl } from './redis-connection.js';
export * from './redis-render-memory.js';
export { type RehomeResult, rehome } from './rehome.js';
export { openRemoteAdmin, type RemoteAdmin } from './remote-admin.js';
export { type ClusterReplayProgress, replayOnCluster } from './replay-client.js';
export { ReplayMember, type ReplayMemberOptions } from './replay-member.js';
export {
  type ClusterReplayReport,
  currentReplayKey,
  type ReplayInfo,
  ReplayKeys,
  type ReplayStarted,
  SLICE_PAGES,
  type SliceAnswer,
  type SliceTask,
} from './replay-protocol.js';
export { type ClusterReplayRequest, type ScatterContext, startReplay } from './replay-scatter.js';
export { CHECK, DISPATCH, JOIN, MOVE, type RunState, runState, SETTLE_TOKEN } from './routing-scripts.js';
export { decodeRunInfo, type RunInfo } from './run-info.js';
export { type MemberContext, postPart, takePart } from './run-member.js';
export { RING_POINTS, RunRing } from './run-ring.js';
export { currentRun, expireRun, FINISHED_RUN_TTL_SECONDS, RUN_TTL_SECONDS, supervise } from './run-supervisor.js';
export { byNode, SharedCounters } from './shared-counters.js';
export { seenBuckets, seenMember } from './url-seen.js';
export { isPerNodeVectorFamily, replicatedVectors, vectorReplicaConsumer } from './vector-replica.js';
export { decodeTask, encodeTask } from './wire.js';
