/**
 * The worker's check of one job, before anything is spawned: its payload's shape, its MAC (with a
 * queue key), its sealed env, its signature key, then every option against the worker's
 * {@link JobAcceptance} and `query()`'s own validation. A job that fails any of it is refused with
 * every reason at once ({@link JobRefusedError}).
 */
import type { AgentOptions } from "../options.js";
import { parseTraceparent, validTracestate } from "../telemetry/cli-env.js";
import { describeValue } from "../wire/safe-json.js";
import { type QueueKey, RunVerifier } from "./auth.js";
import { JobRefusedError } from "./errors.js";
import {
  confinePaths,
  durationIssue,
  type JobAcceptance,
  optionIssues,
  refusedFields,
} from "./job-policy.js";
import { type RemotePrompt, restoreEnv } from "./remote-options.js";

/** A job the worker accepted. */
export interface AdmittedJob {
  prompt: RemotePrompt;
  /** The job's options, env restored (and decrypted), paths resolved inside the accepted root. */
  options: AgentOptions;
  timeoutMs: number | undefined;
  remotePermissions: { timeoutMs: number } | undefined;
  /** Checks the producer's signatures; `undefined` for a job without a run key (a raw BullMQ job). */
  verifier: RunVerifier | undefined;
  /** The producer's span to parent the run's spans (see `telemetry.parent`), when it sent one. */
  trace: { traceparent: string; tracestate?: string } | undefined;
}

const DATA_FIELDS = new Set([
  "v",
  "prompt",
  "options",
  "timeoutMs",
  "remotePermissions",
  "auth",
  "sealedEnv",
  "mac",
  "trace",
]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** Accepts the job or throws {@link JobRefusedError} naming every refused field. */
export async function admitJob(
  jobId: string,
  raw: unknown,
  accept: JobAcceptance,
  key: QueueKey | undefined,
): Promise<AdmittedJob> {
  const refuse = (issues: string[]) => new JobRefusedError(jobId, issues);
  if (!isPlainObject(raw)) throw refuse(["the job's data is not an object"]);
  if (raw.v !== 1)
    throw refuse([
      `v: unknown job payload version ${describeValue(raw.v)}; is this worker older than the producer?`,
    ]);
  if (key) {
    const { mac, ...rest } = raw;
    if (!key.verifyJob(jobId, JSON.stringify(rest), mac))
      throw refuse([
        "mac: the job was not made by a producer holding this queue's key (a raw BullMQ job, or one altered in Redis)",
      ]);
  }
  const issues: string[] = [];
  for (const field of Object.keys(raw))
    if (!DATA_FIELDS.has(field)) issues.push(`${field}: not a field of a queued run`);

  const { prompt } = raw;
  issues.push(...promptIssues(prompt));

  let options: Record<string, unknown> = {};
  if (raw.options !== undefined) {
    if (isPlainObject(raw.options)) options = { ...raw.options };
    else issues.push("options: expected an object");
  }

  if (raw.sealedEnv !== undefined) {
    if (options.env !== undefined) issues.push("sealedEnv: the job carries env both sealed and in clear");
    else if (!key) issues.push("sealedEnv: the env is encrypted and this worker has no queue key");
    else {
      const env = key.open(jobId, raw.sealedEnv);
      if (env) options.env = env;
      else
        issues.push(
          "sealedEnv: does not decrypt with this worker's queue key (another key, job or tampering)",
        );
    }
  }

  issues.push(...refusedFields(options, accept));

  const timeoutIssue = durationIssue("timeoutMs", raw.timeoutMs);
  if (timeoutIssue) issues.push(timeoutIssue);
  let remotePermissions: { timeoutMs: number } | undefined;
  if (raw.remotePermissions !== undefined) {
    const timeoutMs = isPlainObject(raw.remotePermissions) ? raw.remotePermissions.timeoutMs : undefined;
    const issue = durationIssue("remotePermissions.timeoutMs", timeoutMs ?? Number.NaN);
    if (issue) issues.push(issue);
    else remotePermissions = { timeoutMs: timeoutMs as number };
  }

  let verifier: RunVerifier | undefined;
  if (raw.auth !== undefined) {
    verifier = RunVerifier.from(isPlainObject(raw.auth) ? raw.auth.runKey : undefined);
    if (!verifier) issues.push("auth.runKey: not an Ed25519 public key");
  } else if (remotePermissions) {
    issues.push(
      "remotePermissions: a run without a run key (auth) cannot have its permissions answered remotely",
    );
  }

  let trace: AdmittedJob["trace"];
  if (raw.trace !== undefined) {
    const t = isPlainObject(raw.trace) ? raw.trace : {};
    if (!parseTraceparent(t.traceparent) || (t.tracestate !== undefined && !validTracestate(t.tracestate)))
      issues.push("trace: not a W3C trace context");
    else
      trace = {
        traceparent: t.traceparent as string,
        ...(t.tracestate !== undefined ? { tracestate: t.tracestate as string } : {}),
      };
  }

  if (issues.length > 0) throw refuse(issues);

  const env = restoreEnv(options.env as Record<string, string | null> | undefined);
  if (env) options.env = env;
  const invalid = optionIssues(options);
  if (invalid.length > 0) throw refuse(invalid);
  if (accept.cwd) {
    const confined = await confinePaths(options, accept.cwd.root);
    if (confined.issues.length > 0) throw refuse(confined.issues);
    options = confined.options;
  }
  return {
    prompt: prompt as RemotePrompt,
    options: options as AgentOptions,
    timeoutMs: raw.timeoutMs as number | undefined,
    remotePermissions,
    verifier,
    trace,
  };
}

/** Image types a queued prompt may carry inline (those of `ImageInputBlock`). */
const IMAGE_MEDIA_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * What is wrong with a queued prompt: text, or content blocks exactly of the public
 * `UserContentBlock` shapes — text, and images inline (base64) or by an http(s) URL. Nothing else:
 * an image by local path (which a backend would read from the worker's disk and send to the model)
 * or any other block is refused, whatever the worker accepts.
 */
function promptIssues(prompt: unknown): string[] {
  if (typeof prompt === "string") return [];
  if (!Array.isArray(prompt)) return ["prompt: expected text or a list of content blocks"];
  const issues: string[] = [];
  prompt.forEach((block: unknown, i) => {
    const issue = blockIssue(block);
    if (issue !== undefined) issues.push(`prompt[${i}]: ${issue}`);
  });
  return issues;
}

function blockIssue(block: unknown): string | undefined {
  if (!isPlainObject(block)) return "not a content block";
  const keys = Object.keys(block);
  if (block.type === "text") {
    if (typeof block.text !== "string") return "a text block without text";
    return keys.every((k) => k === "type" || k === "text")
      ? undefined
      : "a text block has only type and text";
  }
  if (block.type !== "image") return "a content block is text or an image";
  if (!keys.every((k) => k === "type" || k === "source")) return "an image block has only type and source";
  const source = block.source;
  if (!isPlainObject(source)) return "an image without a source";
  const sourceKeys = Object.keys(source);
  if (source.type === "base64") {
    if (typeof source.data !== "string" || !IMAGE_MEDIA_TYPES.has(source.media_type as string))
      return "a base64 image needs data and a media_type of image/png, image/jpeg, image/gif or image/webp";
    return sourceKeys.every((k) => k === "type" || k === "data" || k === "media_type")
      ? undefined
      : "a base64 image source has only type, media_type and data";
  }
  if (source.type === "url") {
    if (typeof source.url !== "string" || !/^https?:\/\//i.test(source.url))
      return "an image URL must be http(s)";
    return sourceKeys.every((k) => k === "type" || k === "url")
      ? undefined
      : "a URL image source has only type and url";
  }
  return "an image source is base64 or an http(s) URL (a path on the worker's disk is never accepted)";
}
