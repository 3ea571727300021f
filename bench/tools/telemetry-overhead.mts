/**
 * What telemetry costs per message: one query() of N assistant messages (every 10th a tool call
 * and its result) through an in-memory transport, so only the SDK's own work is timed. Modes, run
 * alternately in one process: `off` (nothing registered, @opentelemetry/api never loaded), and
 * `memory` (a TracerProvider with an in-memory exporter and a MeterProvider passed in options).
 *
 *   npx tsx bench/tools/telemetry-overhead.mts [N=20000] [reps=7]
 */
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { type ClaudeAgentOptions, query } from "../../src/index.js";
import type { Transport, TransportItem } from "../../src/transport/index.js";

const N = Number(process.argv[2] ?? 20_000);
const REPS = Number(process.argv[3] ?? 7);

/** A "CLI" that answers initialize and then streams N messages for the one user turn. */
function transport(): Transport {
  const queue: TransportItem[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const push = (item: Record<string, unknown>) => {
    queue.push(item);
    wake?.();
  };
  return {
    connect: async () => {},
    isReady: () => true,
    endInput: async () => {
      ended = true;
      wake?.();
    },
    close: async () => {
      ended = true;
      wake?.();
    },
    async write(data: string) {
      const message = JSON.parse(data) as {
        type: string;
        request_id?: string;
        request?: { subtype: string };
      };
      if (message.type === "control_request" && message.request?.subtype === "initialize")
        push({
          type: "control_response",
          response: { subtype: "success", request_id: message.request_id, response: {} },
        });
      if (message.type !== "user") return;
      for (let i = 0; i < N; i++) {
        const tool = i % 10 === 0;
        push({
          type: "assistant",
          session_id: "s",
          parent_tool_use_id: null,
          message: {
            id: `m${i}`,
            model: "claude-bench",
            role: "assistant",
            content: tool
              ? [{ type: "tool_use", id: `t${i}`, name: "Bash", input: { command: "true" } }]
              : [{ type: "text", text: "x".repeat(100) }],
          },
        });
        if (tool)
          push({
            type: "user",
            session_id: "s",
            parent_tool_use_id: null,
            message: {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "ok" }],
            },
          });
      }
      push({
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 1,
        num_turns: 1,
        result: "done",
        session_id: "s",
        usage: { input_tokens: 10, output_tokens: 10 },
      });
    },
    async *readMessages() {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as TransportItem;
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
}

async function once(options: ClaudeAgentOptions): Promise<number> {
  const t0 = performance.now();
  let count = 0;
  for await (const _ of query({ prompt: "bench", options: { ...options, transport: transport() } })) count++;
  const ms = performance.now() - t0;
  if (count < N) throw new Error(`got ${count} messages`);
  return ms;
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const meterProvider = new MeterProvider();
const modes: Record<string, ClaudeAgentOptions> = {
  off: {},
  memory: { telemetry: { tracerProvider, meterProvider } },
};
// BENCH_TELEMETRY_MODES=off: only the `off` mode (e.g. against a build from before telemetry).
if (process.env.BENCH_TELEMETRY_MODES === "off") delete modes.memory;
const times: Record<string, number[]> = { off: [], memory: [] };
for (const options of Object.values(modes)) await once(options);
for (let rep = 0; rep < REPS; rep++)
  for (const [mode, options] of Object.entries(modes)) {
    times[mode]?.push(await once(options));
    exporter.reset();
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const off = median(times.off ?? []);
const memory = times.memory?.length ? median(times.memory) : Number.NaN;
console.log(`${N} messages (${N / 10} tool calls), median of ${REPS}:`);
console.log(
  `  off (nothing registered): ${off.toFixed(1)} ms  (${((off * 1000) / N).toFixed(2)} µs/message)`,
);
console.log(
  `  in-memory exporter:       ${memory.toFixed(1)} ms  (${((memory * 1000) / N).toFixed(2)} µs/message, ${(memory / off).toFixed(2)}×)`,
);
await tracerProvider.shutdown();
await meterProvider.shutdown();
