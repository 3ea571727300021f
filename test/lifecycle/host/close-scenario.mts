/**
 * One close-path scenario, run as its own Node process (by close-paths.test.ts) with
 * `--unhandled-rejections=strict`: a query is closed mid-turn (the model stalls), and the process
 * must then exit 0 on its own, soon. It prints `{ report }` with the CLI pids it saw and `closedAt`
 * (epoch ms, taken right before the close) so the test can measure the time from the close to the
 * host's exit. Nothing is cleaned up by force: what stays alive is the finding.
 *
 * Usage: node --unhandled-rejections=strict --import tsx close-scenario.mts <scenario>
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  prewarm as compatPrewarm,
  query as compatQuery,
} from "../../../src/compat/claude-agent-sdk/index.js";
import { type Message, query, type StreamedUserInput } from "../../../src/index.js";
import { startFakeAnthropic } from "../../../src/testing/index.js";
import { liveChildren } from "../support/processes.js";

function scratch(): { cwd: string; [Symbol.dispose](): void } {
  const cwd = mkdtempSync(join(tmpdir(), "cas-close-"));
  return { cwd, [Symbol.dispose]: () => rmSync(cwd, { recursive: true, force: true }) };
}

/** The model answers nothing: the turn is still running when the query is closed. */
async function stalledModel() {
  return startFakeAnthropic({ turns: [{ stall: true, text: "thinking" }] });
}

/** The official-compat `Query.close()` after the first message of a turn. */
async function compatQueryClose(): Promise<unknown> {
  await using api = await stalledModel();
  using dir = scratch();
  const q = compatQuery({ prompt: "hi", options: { cwd: dir.cwd, env: api.env() } });
  const first = await q.next();
  const pids = liveChildren();
  const closedAt = Date.now();
  q.close();
  return { pids, first: first.done ? null : first.value.type, closedAt };
}

/** The official-compat `SpareProcess.close()` on a spare claimed and mid-turn. */
async function compatSpareClose(): Promise<unknown> {
  await using api = await stalledModel();
  using dir = scratch();
  const spare = await compatPrewarm({ options: { env: api.env() } });
  const q = spare.claim({ prompt: "hi", options: { cwd: dir.cwd } });
  const first = await q.next();
  const pids = liveChildren();
  const closedAt = Date.now();
  spare.close();
  return { pids, first: first.done ? null : first.value.type, closedAt };
}

/** A core query on a streamed prompt, closed after its first message (not iterated to the end). */
async function coreStreamedClose(): Promise<unknown> {
  await using api = await stalledModel();
  using dir = scratch();
  async function* prompt(): AsyncGenerator<StreamedUserInput> {
    yield { type: "user", message: { role: "user", content: "hi" } } as StreamedUserInput;
  }
  const q = query({ prompt: prompt(), options: { cwd: dir.cwd, env: api.env() } });
  const first = (await q.next()) as IteratorResult<Message, void>;
  const pids = [q.pid];
  const closedAt = Date.now();
  await q.close();
  return { pids, first: first.done ? null : first.value.type, closedAt };
}

/** The same, left with `break` (the iterator's return()) instead of close(). */
async function coreStreamedBreak(): Promise<unknown> {
  await using api = await stalledModel();
  using dir = scratch();
  async function* prompt(): AsyncGenerator<StreamedUserInput> {
    yield { type: "user", message: { role: "user", content: "hi" } } as StreamedUserInput;
  }
  const q = query({ prompt: prompt(), options: { cwd: dir.cwd, env: api.env() } });
  let first: string | undefined;
  let closedAt = 0;
  for await (const message of q) {
    first = message.type;
    closedAt = Date.now();
    break;
  }
  return { pids: [q.pid], first, closedAt };
}

const scenarios: Record<string, () => Promise<unknown>> = {
  "compat-query-close": compatQueryClose,
  "compat-spare-close": compatSpareClose,
  "core-streamed-close": coreStreamedClose,
  "core-streamed-break": coreStreamedBreak,
};

const name = process.argv[2] ?? "";
const scenario = scenarios[name];
if (!scenario) throw new Error(`unknown scenario ${name}`);
const report = await scenario();
process.stdout.write(`${JSON.stringify({ report })}\n`);
