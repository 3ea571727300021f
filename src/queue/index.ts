/**
 * `code-agent-sdk/queue`: agent runs as jobs on a Redis-backed BullMQ queue. Producers enqueue runs
 * and stream their messages live; workers on any number of machines run them.
 *
 * BullMQ and ioredis are optional peer dependencies, loaded when a producer or worker is created:
 * without them, `AgentQueue.connect()` and `AgentWorker.start()` reject with
 * {@link QueueDependencyError}.
 * @packageDocumentation
 */
export type { QueueConnectionOptions, RedisConnection } from "./connection.js";
export type { RemotePermissionContext, RunEntry, RunStatus } from "./entries.js";
export {
  JobRefusedError,
  QueueClosedError,
  type QueueConnectionContext,
  QueueConnectionError,
  QueueDependencyError,
  QueueProtocolError,
  QueueWatchdogError,
  RemoteRunError,
  RunTimeoutError,
  type SerializedRunError,
  StreamGapError,
} from "./errors.js";
export type { JobAcceptance } from "./job-policy.js";
export {
  AgentQueue,
  type AgentQueueOptions,
  type AgentRun,
  type CancelMode,
  type CollectedRun,
  type EnqueueParams,
} from "./producer.js";
export {
  type AgentJobData,
  type InProcessOnly,
  type RemoteAgentOptions,
  type RemoteMcpServerConfig,
  type RemotePrompt,
  remoteRunIssues,
} from "./remote-options.js";
export {
  AgentWorker,
  type AgentWorkerOptions,
  isCliCrash,
  type RunInfo,
  type WorkerCloseOptions,
} from "./worker.js";
