/**
 * A consumer slower than its CLI: the fake CLI can write FAKE_N × FAKE_S × FAKE_REPEAT bytes
 * (≥ 1 GB) as fast as the pipe takes them, while the consumer takes one message per millisecond for
 * `durationMs`, then stops. Reports the process's peak RSS and the consumer's message rate.
 *
 * What holds memory here is whatever an implementation reads ahead of its consumer. The raw floor
 * is a readline loop over the child's stdout (readline's async iterator pauses the pipe when its
 * queue is full); ours and the anchors are consumed with `for await`, as a user would.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { guard, params, report } from "./common.mjs";

const CLAUDE_ARGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];

/**
 * Paces the consumer to one message per millisecond: the i-th message is taken no earlier than
 * i ms after the start. `take()` resolves false once `durationMs` has passed.
 */
function pacer(durationMs) {
  const t0 = performance.now();
  let taken = 0;
  return {
    get taken() {
      return taken;
    },
    elapsedMs: () => performance.now() - t0,
    async take() {
      taken += 1;
      const wait = t0 + taken - performance.now();
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      return performance.now() - t0 < durationMs;
    },
  };
}

/** The floor: a readline loop over the CLI's stdout. */
async function raw(backend, cli, pace) {
  const args = backend === "claude" ? CLAUDE_ARGS : ["exec", "--json", "--skip-git-repo-check"];
  const child = spawn(cli, args, { stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.on("error", () => undefined);
  if (backend === "claude") {
    const send = (obj) => child.stdin.write(`${JSON.stringify(obj)}\n`);
    send({ type: "control_request", request_id: "init-1", request: { subtype: "initialize", hooks: null } });
    send({
      type: "user",
      message: { role: "user", content: "bench" },
      parent_tool_use_id: null,
      session_id: "default",
    });
  } else {
    child.stdin.end("bench");
  }
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      const message = JSON.parse(line);
      const isMessage =
        backend === "claude" ? message.type === "assistant" : message.type === "item.completed";
      if (isMessage && !(await pace.take())) break;
    }
  } finally {
    child.kill("SIGKILL");
  }
}

async function ours(backend, cli, pace) {
  const sdk = await import(pathToFileURL(process.env.BENCH_DIST).href);
  const options = backend === "claude" ? { cliPath: cli } : { backend: "codex", cliPath: cli };
  for await (const message of sdk.query({ prompt: "bench", options })) {
    if (message.type === "assistant" && !(await pace.take())) break;
  }
}

async function anchor(backend, cli, pace) {
  if (backend === "claude") {
    const { query } = await import("@anthropic-ai/claude-agent-sdk");
    for await (const message of query({ prompt: "bench", options: { pathToClaudeCodeExecutable: cli } })) {
      if (message.type === "assistant" && !(await pace.take())) break;
    }
    return;
  }
  const { Codex } = await import("@openai/codex-sdk");
  const thread = new Codex({ codexPathOverride: cli }).startThread({ skipGitRepoCheck: true });
  const { events } = await thread.runStreamed("bench");
  for await (const event of events) {
    if (event.type === "item.completed" && !(await pace.take())) break;
  }
}

await guard(async () => {
  const p = params();
  const run = { raw, ours, anchor }[p.impl];
  const rssBefore = process.memoryUsage.rss();
  const pace = pacer(p.durationMs ?? 20_000);
  await run(p.backend, p.cli, pace);
  const seconds = pace.elapsedMs() / 1000;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  report({
    ms: pace.elapsedMs(),
    rate: pace.taken / seconds,
    peakRssMB: peakRss / 2 ** 20,
    peakRssGrowthMB: (peakRss - rssBefore) / 2 ** 20,
  });
  // An SDK may keep its CLI (killed by the orchestrator's leftover check) or a handle alive.
  setTimeout(() => process.exit(0), 500);
});
