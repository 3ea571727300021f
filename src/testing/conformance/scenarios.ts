/**
 * The cross-backend conformance scenarios: a scripted model, a program written once against the
 * public API, and the unified transcript every backend must produce.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Capabilities } from "../../backends/backend.js";
import { AgentSdkClient } from "../../client.js";
import { TimeoutError } from "../../errors.js";
import type { Message, ResultMessage } from "../../messages.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { CanUseTool } from "../../permissions.js";
import { query } from "../../query.js";
import type { ModelStep } from "./model.js";
import type { ExpectedEntry } from "./transcript.js";

/** What a scenario may need beyond the backend's {@link Capabilities}. */
export type ConformanceFeature =
  | keyof Capabilities
  | "structuredOutput"
  | "stdioMcpServers"
  | "resume"
  /** `canUseTool` sees every tool call, also those the CLI would run without asking (`toolPolicy: "every-call"`). */
  | "everyCallPolicy"
  /** An ACP agent that runs commands through the client's `terminal/*` methods. */
  | "clientTerminals";

/** What a running scenario gets from its target. */
export interface ScenarioContext {
  /** The session's workspace. */
  cwd: string;
  /** Options that point the agent at the scripted model, in the workspace. */
  options(extra?: ResolvedOptions): ResolvedOptions;
  /** Options for a stdio MCP server named `echo` with one tool `echo` (`{ text }` → `echo: <text>`). */
  echoMcpServer(): NonNullable<ResolvedOptions["mcpServers"]>;
  /** Resolves once the scripted model has received a request it stalls on. */
  stalled(): Promise<void>;
  /** Every request body the scripted model received, as JSON text. */
  modelRequests(): string[];
}

/** What a scenario's program returns: the messages it saw, and its own checks' failures. */
export interface ScenarioRun {
  messages: Message[];
  problems: string[];
}

/** One conformance scenario. */
export interface ConformanceScenario {
  id: string;
  description: string;
  /** Capabilities and features the scenario needs; a target lacking one skips it, naming it. */
  needs: ConformanceFeature[];
  /** What the scripted model answers, request by request. */
  model: ModelStep[];
  /** The program, written once against the public API. */
  run(ctx: ScenarioContext): Promise<ScenarioRun>;
  /** The unified transcript every backend must produce. */
  expected: ExpectedEntry[];
  /** Compare only the transcript's last `expected.length` entries (what came before may vary). */
  tailOnly?: boolean;
}

/**
 * The permission rule of the README's example: allow commands that start with `npm ` or `touch `,
 * deny everything else with a message.
 */
function onlyTouch(seen: [string, Record<string, unknown>][]): CanUseTool {
  return async (toolName, input) => {
    seen.push([toolName, input]);
    return toolName === "Bash" && String(input.command).startsWith("touch ")
      ? { behavior: "allow", updatedInput: input }
      : { behavior: "deny", message: "Only touch commands", interrupt: false };
  };
}

const allowAll: CanUseTool = async (_name, input) => ({ behavior: "allow", updatedInput: input });

async function collect(messages: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

function check(problems: string[], ok: boolean, problem: string): void {
  if (!ok) problems.push(problem);
}

/** Every scenario, in the order they run. */
export const CONFORMANCE_SCENARIOS: readonly ConformanceScenario[] = [
  {
    id: "text-answer",
    description: "a one-shot prompt answered with text",
    needs: [],
    model: [{ text: "Hello from the scripted model" }],
    async run(ctx) {
      const messages = await collect(query({ prompt: "say hello", options: ctx.options() }));
      return { messages, problems: [] };
    },
    expected: [
      { type: "text", text: "Hello from the scripted model" },
      { type: "result", isError: false, result: "Hello from the scripted model" },
    ],
  },
  {
    id: "command-allowed",
    description: "a command the permission callback allows runs; the callback saw the command as meant",
    needs: ["toolApproval"],
    model: [{ bash: "touch allowed.txt" }, { text: "ran it" }],
    async run(ctx) {
      const seen: [string, Record<string, unknown>][] = [];
      const messages = await collect(
        query({ prompt: "create the file", options: ctx.options({ canUseTool: onlyTouch(seen) }) }),
      );
      const problems: string[] = [];
      check(problems, existsSync(join(ctx.cwd, "allowed.txt")), "allowed.txt was not created");
      check(
        problems,
        seen.length === 1 && seen[0]?.[0] === "Bash" && seen[0]?.[1].command === "touch allowed.txt",
        `canUseTool saw ${JSON.stringify(seen)}, expected Bash { command: "touch allowed.txt" }`,
      );
      return { messages, problems };
    },
    expected: [
      { type: "tool_use", name: "Bash", input: { command: "touch allowed.txt" } },
      { type: "tool_result", isError: false },
      { type: "text", text: "ran it" },
      { type: "result", isError: false, result: "ran it" },
    ],
  },
  {
    id: "command-denied",
    description: "a command the permission callback denies does not run; the turn goes on",
    needs: ["toolApproval"],
    model: [{ bash: "rm -rf precious" }, { text: "could not" }],
    async run(ctx) {
      const seen: [string, Record<string, unknown>][] = [];
      const messages = await collect(
        query({ prompt: "delete it", options: ctx.options({ canUseTool: onlyTouch(seen) }) }),
      );
      const problems: string[] = [];
      check(problems, seen.length === 1, `canUseTool was asked ${seen.length} times, expected once`);
      return { messages, problems };
    },
    expected: [
      { type: "tool_use", name: "Bash", input: { command: "rm -rf precious" } },
      { type: "tool_result", isError: true },
      { type: "text", text: "could not" },
      { type: "result", isError: false, result: "could not" },
    ],
  },
  {
    id: "file-write",
    description: "the agent creates a file: a Write call naming it, and the file on disk",
    needs: ["toolApproval"],
    model: [{ write: { path: "notes.txt", content: "conformance\n" } }, { text: "written" }],
    async run(ctx) {
      const messages = await collect(
        query({ prompt: "write notes.txt", options: ctx.options({ canUseTool: allowAll }) }),
      );
      const problems: string[] = [];
      check(problems, existsSync(join(ctx.cwd, "notes.txt")), "notes.txt was not created");
      return { messages, problems };
    },
    expected: [
      { type: "tool_use", name: "Write", input: { file_path: /(^|\/)notes\.txt$/ } },
      { type: "tool_result", isError: false },
      { type: "text", text: "written" },
      { type: "result", isError: false, result: "written" },
    ],
  },
  {
    id: "mcp-tool-call",
    description: "a tool of a stdio MCP server is called as mcp__<server>__<tool> and answers",
    needs: ["stdioMcpServers"],
    model: [{ mcp: { server: "echo", tool: "echo", arguments: { text: "hi" } } }, { text: "echoed" }],
    async run(ctx) {
      const messages = await collect(
        query({
          prompt: "use the echo tool",
          options: ctx.options({ mcpServers: ctx.echoMcpServer(), canUseTool: allowAll }),
        }),
      );
      return { messages, problems: [] };
    },
    expected: [
      { type: "tool_use", name: "mcp__echo__echo", input: { text: "hi" } },
      { type: "tool_result", isError: false },
      { type: "text", text: "echoed" },
      { type: "result", isError: false, result: "echoed" },
    ],
  },
  {
    id: "structured-output",
    description: "outputFormat with a JSON schema yields the parsed value in result.structuredOutput",
    needs: ["structuredOutput"],
    model: [{ json: { answer: 4 } }],
    async run(ctx) {
      const schema = {
        type: "object",
        properties: { answer: { type: "number" } },
        required: ["answer"],
        additionalProperties: false,
      };
      const messages = await collect(
        query({
          prompt: "what is 2+2?",
          options: ctx.options({ outputFormat: { type: "json_schema", schema } }),
        }),
      );
      return { messages, problems: [] };
    },
    expected: [{ type: "result", isError: false, structuredOutput: { answer: 4 } }],
  },
  {
    id: "interrupt",
    description: "interrupt() ends a turn the model is still answering; the result is an error",
    needs: ["interrupt", "persistentSession"],
    model: [{ stall: "thinking it over" }],
    async run(ctx) {
      await using client = new AgentSdkClient(ctx.options());
      await client.connect();
      await client.query("take your time");
      const stalled = ctx.stalled().then(() => client.interrupt());
      const messages = await collect(client.receiveResponse());
      await stalled;
      return { messages, problems: [] };
    },
    // Whatever streamed before the interrupt is not compared: only that the turn ends as an error.
    expected: [{ type: "result", isError: true }],
  },
  {
    id: "multi-turn-resume",
    description: "a second session resumes the first by id and the model sees the earlier turn",
    needs: ["resume"],
    model: [{ text: "noted" }, { text: "it was apricot" }],
    async run(ctx) {
      const first = await collect(query({ prompt: "remember the word apricot", options: ctx.options() }));
      const sessionId = first.find((m) => m.type === "result")?.sessionId;
      const problems: string[] = [];
      if (!sessionId) return { messages: first, problems: ["the first result has no sessionId"] };
      const second = await collect(
        query({ prompt: "what was the word?", options: ctx.options({ resume: sessionId }) }),
      );
      const last = ctx.modelRequests().at(-1) ?? "";
      check(
        problems,
        last.includes("remember the word apricot"),
        "the resumed turn's request lacks the first prompt",
      );
      check(problems, last.includes("noted"), "the resumed turn's request lacks the first answer");
      return { messages: [...first, ...second], problems };
    },
    expected: [
      { type: "text", text: "noted" },
      { type: "result", isError: false, result: "noted" },
      { type: "text", text: "it was apricot" },
      { type: "result", isError: false, result: "it was apricot" },
    ],
  },
  ...portabilityScenarios(),
];

function resultsOf(messages: Message[]): ResultMessage[] {
  return messages.filter((m): m is ResultMessage => m.type === "result");
}

/** The fields every backend's result has (null where the CLI reports nothing). */
const RESULT_FIELDS = [
  "totalCostUsd",
  "sessionCostUsd",
  "tokenUsage",
  "modelUsage",
  "permissionDenials",
  "stopReason",
  "terminalReason",
  "apiErrorStatus",
  "errorKind",
  "retryAfterMs",
  "resetsAt",
] as const;

/** Portable behaviour: one policy, limits, cost, failure classes, interrupt then ask. */
function portabilityScenarios(): ConformanceScenario[] {
  return [
    {
      id: "policy-sees-auto-allowed-read",
      description: "canUseTool is asked about a read-only command the CLI would run by itself",
      needs: ["toolApproval", "everyCallPolicy"],
      model: [{ bash: "ls" }, { text: "listed" }],
      async run(ctx) {
        const seen: [string, Record<string, unknown>][] = [];
        const messages = await collect(
          query({ prompt: "list the files", options: ctx.options({ canUseTool: onlyTouch(seen) }) }),
        );
        const problems: string[] = [];
        check(
          problems,
          seen.some(([name, input]) => name === "Bash" && input.command === "ls"),
          `canUseTool saw ${JSON.stringify(seen)}, expected Bash { command: "ls" }`,
        );
        return { messages, problems };
      },
      expected: [
        { type: "tool_use", name: "Bash", input: { command: "ls" } },
        { type: "tool_result", isError: true },
        { type: "text", text: "listed" },
        { type: "result", isError: false, result: "listed" },
      ],
    },
    {
      id: "terminal-on-acp",
      description:
        "a command an ACP agent runs through the client's terminal reaches canUseTool, and runs once allowed",
      needs: ["toolApproval", "clientTerminals"],
      model: [{ bash: "touch via-terminal.txt" }, { text: "ran it" }],
      async run(ctx) {
        const seen: [string, Record<string, unknown>][] = [];
        const messages = await collect(
          query({ prompt: "create the file", options: ctx.options({ canUseTool: onlyTouch(seen) }) }),
        );
        const problems: string[] = [];
        check(problems, existsSync(join(ctx.cwd, "via-terminal.txt")), "via-terminal.txt was not created");
        check(
          problems,
          seen.some(([name, input]) => name === "Bash" && input.command === "touch via-terminal.txt"),
          `canUseTool saw ${JSON.stringify(seen)}, expected Bash { command: "touch via-terminal.txt" }`,
        );
        return { messages, problems };
      },
      expected: [
        { type: "tool_use", name: "Bash", input: { command: "touch via-terminal.txt" } },
        { type: "tool_result", isError: false },
        { type: "text", text: "ran it" },
        { type: "result", isError: false, result: "ran it" },
      ],
    },
    {
      id: "structured-output-deny-default",
      description:
        "structured output survives a deny-by-default canUseTool (bookkeeping tools never reach it)",
      needs: ["structuredOutput", "toolApproval"],
      model: [{ json: { answer: 4 } }],
      async run(ctx) {
        const schema = {
          type: "object",
          properties: { answer: { type: "number" } },
          required: ["answer"],
          additionalProperties: false,
        };
        const denyAll: CanUseTool = async () => ({ behavior: "deny", message: "nothing is allowed" });
        const messages = await collect(
          query({
            prompt: "what is 2+2?",
            options: ctx.options({ outputFormat: { type: "json_schema", schema }, canUseTool: denyAll }),
          }),
        );
        return { messages, problems: [] };
      },
      expected: [{ type: "result", isError: false, structuredOutput: { answer: 4 } }],
    },
    {
      id: "timeout",
      description: "timeoutMs ends a turn the model never finishes with a TimeoutError naming the limit",
      needs: [],
      model: [{ stall: "still thinking" }],
      async run(ctx) {
        const problems: string[] = [];
        const messages: Message[] = [];
        try {
          for await (const m of query({
            prompt: "take your time",
            options: ctx.options({ timeoutMs: 3000 }),
          }))
            messages.push(m);
          problems.push("the query ended without an error");
        } catch (error) {
          check(
            problems,
            error instanceof TimeoutError && error.limit === "timeoutMs",
            `threw ${error instanceof Error ? error.name : String(error)}, expected TimeoutError (timeoutMs)`,
          );
        }
        return { messages: [], problems };
      },
      expected: [],
    },
    {
      id: "max-turns",
      description:
        "maxTurns: 1 ends the turn after one tool round with error_max_turns (SDK-enforced off Claude)",
      needs: ["toolApproval"],
      model: [{ bash: "touch one.txt" }, { bash: "touch two.txt" }, { text: "never reached" }],
      async run(ctx) {
        const messages = await collect(
          query({ prompt: "touch files", options: ctx.options({ maxTurns: 1, canUseTool: allowAll }) }),
        );
        const result = resultsOf(messages).at(-1);
        const problems: string[] = [];
        check(
          problems,
          result?.subtype === "error_max_turns",
          `result subtype ${result?.subtype}, expected error_max_turns`,
        );
        return { messages, problems };
      },
      expected: [{ type: "result", isError: true }],
      tailOnly: true,
    },
    {
      id: "two-turn-cost",
      description:
        "two turns: each result has the one shape; sessionCostUsd is the running total of the turn costs",
      needs: [],
      model: [{ text: "first" }, { text: "second" }],
      async run(ctx) {
        await using client = new AgentSdkClient(ctx.options());
        await client.connect();
        const one = await client.run("turn one");
        const two = await client.run("turn two");
        const problems: string[] = [];
        for (const r of [one.result, two.result]) {
          const missing = RESULT_FIELDS.filter((f) => !(f in r));
          check(problems, missing.length === 0, `the result lacks ${missing.join(", ")}`);
        }
        const [a, b] = [one.result, two.result];
        if (a.totalCostUsd !== null && b.totalCostUsd !== null && typeof b.sessionCostUsd === "number") {
          const base = typeof a.sessionCostUsd === "number" ? a.sessionCostUsd : a.totalCostUsd;
          check(
            problems,
            Math.abs(b.sessionCostUsd - (base + b.totalCostUsd)) < 1e-9,
            `sessionCostUsd ${b.sessionCostUsd} ≠ ${base} + ${b.totalCostUsd}`,
          );
          // (An agent whose model has no price, e.g. OpenCode on the fake model, reports 0 every turn.)
          check(
            problems,
            base === 0 || b.totalCostUsd < b.sessionCostUsd,
            "the second totalCostUsd is the running total, not the turn's",
          );
        }
        return { messages: [...one.messages, ...two.messages], problems };
      },
      expected: [
        { type: "text", text: "first" },
        { type: "result", isError: false, result: "first" },
        { type: "text", text: "second" },
        { type: "result", isError: false, result: "second" },
      ],
    },
    {
      id: "rate-limit-vs-quota",
      description: "a 429 is errorKind rate_limit, a used-up quota usage_limit",
      needs: [],
      model: [{ fail: "rate_limit" }, { fail: "usage_limit" }],
      async run(ctx) {
        const rate = await query({ prompt: "one", options: ctx.options() }).collect();
        const quota = await query({ prompt: "two", options: ctx.options() }).collect();
        const problems: string[] = [];
        check(
          problems,
          rate.errorKind === "rate_limit",
          `the 429 gave errorKind ${rate.errorKind} (${rate.error})`,
        );
        check(
          problems,
          quota.errorKind === "usage_limit",
          `the quota gave errorKind ${quota.errorKind} (${quota.error})`,
        );
        return { messages: [rate.result, quota.result], problems };
      },
      expected: [
        { type: "result", isError: true },
        { type: "result", isError: true },
      ],
    },
    {
      id: "interrupt-then-ask",
      description: "run() right after interrupt() waits for the interrupted turn, then gets its own answer",
      needs: ["interrupt", "persistentSession"],
      model: [{ stall: "thinking it over" }, { text: "the next answer" }],
      async run(ctx) {
        await using client = new AgentSdkClient(ctx.options());
        await client.connect();
        await client.query("take your time");
        await ctx.stalled();
        await client.interrupt();
        const turn = await client.run("and now?");
        const problems: string[] = [];
        check(
          problems,
          turn.text === "the next answer",
          `the next turn answered ${JSON.stringify(turn.text)}`,
        );
        return { messages: turn.messages, problems };
      },
      expected: [
        { type: "text", text: "the next answer" },
        { type: "result", isError: false, result: "the next answer" },
      ],
      tailOnly: true,
    },
  ];
}
