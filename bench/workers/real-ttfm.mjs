/**
 * Time to first message with the REAL `claude` and `codex` binaries, offline against the testing
 * kit's scripted model servers: the CLI's own start-up (hundreds of ms for Claude Code) is what a
 * user waits for, and warm start is there to take it out of the wait.
 *
 * Per implementation, in one fresh process (the first query of a process pays module loading):
 * - raw: spawn the CLI and write the handshake and the prompt at once (cold); spawn, finish the
 *   handshake, then time the prompt (warm). The floor: no SDK at all, with the arguments,
 *   handshake and environment ours uses (the kit's environment, not the bench's `process.env`:
 *   with it, Claude Code took ~13 ms longer to answer here, ~6 ms of it for `NODE_EXTRA_CA_CERTS`).
 * - ours: `query()` (cold); `startup()` then `warm.query()` (warm); a `WarmPool` of 1 (pool), the
 *   same with `refillDelayMs: 300` (the replacement starts after the answer has begun); and the
 *   resident memory of one warm process (`warmRssMB`).
 * - ours and anchor, Claude only: a spare parked by `prewarm()` before its folder is known, then
 *   claimed into it (`spareMs`, from the claim).
 * - anchor: the official SDK's `query()` (cold) and, for Claude, its `startup()` then
 *   `warmQuery.query()` (warm). The Codex SDK has no warm start.
 *
 * Each figure is the median of `rounds` measurements; the clock runs from the call that sends the
 * prompt to the first assistant message in the caller's hands.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { guard, params, report } from "./common.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const CLI = {
  claude: join(ROOT, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude"),
  codex: join(
    ROOT,
    "node_modules",
    "@openai",
    "codex-linux-x64",
    "vendor",
    "x86_64-unknown-linux-musl",
    "bin",
    "codex",
  ),
};
const distDir = dirname(process.env.BENCH_DIST);
const kit = await import(pathToFileURL(join(distDir, "testing", "index.js")).href);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function rssMB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return undefined;
  }
}

/** A scripted model that answers every request with one short text. */
async function model(backend) {
  if (backend === "claude") {
    const server = await kit.startFakeAnthropic({ defaultTurn: { text: "first" } });
    return { env: server.env(), close: () => server.close() };
  }
  const server = await kit.startFakeOpenAI({ defaultTurn: { text: "first" } });
  const home = server.codexHome();
  return { env: home.env, close: () => server.close() };
}

/** A raw CLI process reading JSON lines: `next(predicate)` resolves with the first matching line. */
function rawProcess(command, args, env) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "ignore"], detached: true });
  const waiters = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  return {
    child,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    next: (predicate) => new Promise((resolve) => waiters.push({ predicate, resolve })),
    kill: () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    },
  };
}

// The arguments ours passes by default, and the initialize request it sends (an empty system
// prompt, as the official SDK's), so the floor asks the CLI for the same work.
const CLAUDE_ARGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
const claudeInitialize = {
  type: "control_request",
  request_id: "init",
  request: { subtype: "initialize", systemPrompt: [""] },
};
const claudePrompt = { type: "user", message: { role: "user", content: "hello" }, parent_tool_use_id: null };
const isAssistant = (m) => m.type === "assistant";

async function rawClaude(env, warm) {
  let t0 = performance.now();
  const cli = rawProcess(CLI.claude, CLAUDE_ARGS, env);
  try {
    cli.send(claudeInitialize);
    if (warm) {
      await cli.next((m) => m.type === "control_response");
      t0 = performance.now();
    }
    cli.send(claudePrompt);
    await cli.next(isAssistant);
    return performance.now() - t0;
  } finally {
    cli.kill();
  }
}

async function rawCodex(env, warm) {
  let t0 = performance.now();
  const cli = rawProcess(CLI.codex, ["app-server"], env);
  try {
    let id = 0;
    const request = (method, params) => {
      id += 1;
      const myId = id;
      cli.send({ jsonrpc: "2.0", id: myId, method, params });
      return cli.next((m) => m.id === myId && !m.method);
    };
    const handshake = async () => {
      await request("initialize", { clientInfo: { name: "bench", version: "0" } });
      cli.send({ jsonrpc: "2.0", method: "initialized" });
      const started = await request("thread/start", { cwd: process.cwd() });
      return started.result.thread.id;
    };
    const threadId = await handshake();
    if (warm) t0 = performance.now();
    const first = cli.next((m) => m.method === "item/completed" && m.params?.item?.type === "agentMessage");
    request("turn/start", { threadId, input: [{ type: "text", text: "hello", text_elements: [] }] });
    await first;
    return performance.now() - t0;
  } finally {
    cli.kill();
  }
}

/**
 * Milliseconds from `t0` to the first message `onFirst` accepts, read the moment that message is in
 * the caller's hands: the loop's exit then closes the query (`return()`), which waits for the CLI
 * to exit and is not part of the wait for the first message (the raw floor kills its CLI after
 * taking the time too).
 */
async function timeToFirst(t0, iterable, onFirst) {
  for await (const message of iterable) {
    if (onFirst(message)) return performance.now() - t0;
  }
  throw new Error("the query ended without the expected message");
}

/** First-message times of `rounds` queries handed out by `pool` (each once the pool is ready); closes it. */
async function poolFirstMessages(pool, rounds) {
  const times = [];
  for (let i = 0; i < rounds; i++) {
    await pool.ready();
    const t0 = performance.now();
    const q = pool.query("hello");
    times.push(await timeToFirst(t0, q, isAssistant));
    await q.close();
  }
  await pool.close();
  return times;
}

async function ours(backend, env, rounds) {
  const { dist } = { dist: await import(pathToFileURL(process.env.BENCH_DIST).href) };
  // The kit's environment is the CLI's whole environment (as for the floor and the official SDKs,
  // whose `env` replaces `process.env`); ours layers `env` over `process.env` unless told not to.
  const options = { backend, cliPath: CLI[backend], env, inheritEnv: false };
  const cold = [];
  const warm = [];
  let warmRss;
  for (let i = 0; i < rounds; i++) {
    let t0 = performance.now();
    const q = dist.query({ prompt: "hello", options });
    cold.push(await timeToFirst(t0, q, isAssistant));
    await q.close();

    const session = await dist.startup({ options });
    warmRss ??= rssMB(session.pid);
    t0 = performance.now();
    const wq = session.query("hello");
    warm.push(await timeToFirst(t0, wq, isAssistant));
    await wq.close();
  }
  const pooled = await poolFirstMessages(new dist.WarmPool({ options, size: 1 }), rounds);
  // The same with the replacement started after the answer has begun (`refillDelayMs`).
  const delayed = await poolFirstMessages(
    new dist.WarmPool({ options, size: 1, refillDelayMs: 300 }),
    rounds,
  );
  // A spare parked before its folder is known, claimed into the folder (Claude only).
  const spared = [];
  if (backend === "claude") {
    for (let i = 0; i < rounds; i++) {
      const spare = await dist.prewarm({ options: { cliPath: CLI.claude, env, inheritEnv: false } });
      const t0 = performance.now();
      const q = spare.claim("hello", { cwd: process.cwd() });
      spared.push(await timeToFirst(t0, q, isAssistant));
      await q.close();
    }
  }
  return {
    coldMs: cold[0],
    ms: median(cold.slice(1)),
    warmMs: median(warm),
    poolMs: median(pooled),
    poolDelayedMs: median(delayed),
    ...(spared.length > 0 ? { spareMs: median(spared) } : {}),
    warmRssMB: warmRss,
  };
}

async function anchor(backend, env, rounds) {
  const cold = [];
  const warm = [];
  if (backend === "claude") {
    const sdk = await import("@anthropic-ai/claude-agent-sdk");
    const options = { pathToClaudeCodeExecutable: CLI.claude, env };
    for (let i = 0; i < rounds; i++) {
      let t0 = performance.now();
      const q = sdk.query({ prompt: "hello", options });
      cold.push(await timeToFirst(t0, q, isAssistant));
      q.close();
      const warmQuery = await sdk.startup({ options });
      t0 = performance.now();
      const wq = warmQuery.query("hello");
      warm.push(await timeToFirst(t0, wq, isAssistant));
      wq.close();
    }
    const spared = [];
    for (let i = 0; i < rounds; i++) {
      const spare = await sdk.prewarm({ options });
      const t0 = performance.now();
      const q = spare.claim({ prompt: "hello", options: { cwd: process.cwd() } });
      spared.push(await timeToFirst(t0, q, isAssistant));
      q.close();
      await spare.exited;
    }
    return { coldMs: cold[0], ms: median(cold.slice(1)), warmMs: median(warm), spareMs: median(spared) };
  }
  const { Codex } = await import("@openai/codex-sdk");
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const thread = new Codex({ codexPathOverride: CLI.codex, env }).startThread({ skipGitRepoCheck: true });
    const { events } = await thread.runStreamed("hello");
    cold.push(
      await timeToFirst(t0, events, (e) => e.type === "item.completed" && e.item.type === "agent_message"),
    );
  }
  return { coldMs: cold[0], ms: median(cold.slice(1)) };
}

await guard(async () => {
  const p = params();
  const backend = p.backend;
  const rounds = p.rounds ?? 3;
  const server = await model(backend);
  try {
    if (p.impl === "raw") {
      const run = backend === "claude" ? rawClaude : rawCodex;
      const cold = [];
      const warm = [];
      for (let i = 0; i < rounds; i++) {
        cold.push(await run(server.env, false));
        warm.push(await run(server.env, true));
      }
      report({ coldMs: cold[0], ms: median(cold.slice(1)), warmMs: median(warm) });
    } else if (p.impl === "ours") {
      report(await ours(backend, server.env, rounds));
    } else {
      report(await anchor(backend, server.env, rounds));
    }
  } finally {
    await server.close();
  }
});
