/**
 * Type-level cases (checked by `tsc` in test/unit/options/type-tests.test.ts, never run): options
 * are typed per backend. A Claude-only option, or another backend's section, is a compile-time
 * error once `backend` names a backend; the neutral core is accepted everywhere; and the types
 * agree with the support table and the run-time schema (they cannot drift apart silently).
 */
import type * as z from "zod/mini";
import type { ResolvedOptions } from "../../src/options/resolved.js";
import type { CommonOptionName, OptionName, OptionNamesOf } from "../../src/options/support.js";
import type {
  AcpAgentOptions,
  AgentOptions,
  BackendKind,
  BackendOf,
  ClaudeAgentOptions,
  CodexAgentOptions,
  CommonOptions,
  CursorAgentOptions,
  OptionsFor,
} from "../../src/options.js";
import type { agentOptionsSchema } from "../../src/options-schema.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type Extends<A, B> = [A] extends [B] ? true : false;

declare function use(options: AgentOptions): void;

// ── the neutral core is accepted on every backend ──

export function coreEverywhere(): void {
  const core = {
    cwd: "/srv/repo",
    env: { A: "1", B: undefined },
    inheritEnv: false,
    cliPath: "/usr/local/bin/agent",
    extraArgs: { verbose: null },
    signal: new AbortController().signal,
    stderr: (_line: string) => {},
    maxBufferSize: 1 << 20,
    closeGraceMs: 1000,
    exitTimeoutMs: 1000,
    resume: "01a2006c-d3d2-7562-819c-e668dc7cb903",
    includePartialMessages: true,
    maxTurns: 3,
    maxBudgetUsd: 1,
    maxBudgetTokens: 10_000,
    timeoutMs: 60_000,
    telemetry: {},
  } satisfies CommonOptions;
  use(core);
  use({ ...core, backend: "claude" });
  use({ ...core, backend: "codex" });
  use({ ...core, backend: "cursor" });
  use({ ...core, backend: "acp", acp: { agent: "gemini" } });
}

// ── valid per-backend combinations ──

export function validCombinations(): void {
  use({ hooks: {}, settingSources: [], systemPrompt: { type: "preset", preset: "claude_code" } });
  use({ backend: "claude", agents: { a: { description: "d", prompt: "p" } }, plugins: [] });
  use({
    backend: "codex",
    codex: { sandboxMode: "workspace-write", approvalPolicy: "untrusted" },
    model: "gpt-5.5",
    effort: "high",
    canUseTool: async () => ({ behavior: "allow" }),
    mcpServers: { s: { command: "node" } },
    addDirs: ["/tmp"],
    outputFormat: { type: "json_schema", schema: {} },
    record: "/tmp/run.jsonl",
  });
  use({ backend: "cursor", cursor: { mode: "ask", apiKey: "k" }, model: "sonnet-4" });
  use({
    backend: "acp",
    acp: { agent: "qwen", terminal: false },
    canUseTool: async () => ({ behavior: "allow" }),
    mcpServers: { s: { command: "node" } },
  });
  // session/fork where the agent declares it.
  use({ backend: "acp", acp: { agent: "opencode" }, resume: "ses_1", forkSession: true });
}

// ── Claude-only options are rejected on the other backends ──

export function claudeOnlyOnCodex(): void {
  // @ts-expect-error: hooks are Claude Code's
  use({ backend: "codex", hooks: {} });
  // @ts-expect-error: settings files are Claude Code's
  use({ backend: "codex", settingSources: ["project"] });
  // @ts-expect-error: the system prompt preset is Claude Code's
  use({ backend: "codex", systemPrompt: { type: "preset", preset: "claude_code" } });
  // @ts-expect-error: subagents are Claude Code's
  use({ backend: "codex", agents: { a: { description: "d", prompt: "p" } } });
  // @ts-expect-error: plugins are Claude Code's
  use({ backend: "codex", plugins: [{ type: "local", path: "/p" }] });
  // @ts-expect-error: Claude's permission modes
  use({ backend: "codex", permissionMode: "plan" });
  // @ts-expect-error: Claude's tool lists
  use({ backend: "codex", allowedTools: ["Bash"] });
  // @ts-expect-error: Codex has no fork (Claude and ACP have)
  use({ backend: "codex", resume: "t", forkSession: true });
}

export function claudeOnlyOnAcp(): void {
  // @ts-expect-error: hooks are Claude Code's
  use({ backend: "acp", acp: { agent: "gemini" }, hooks: {} });
  // @ts-expect-error: settings files are Claude Code's
  use({ backend: "acp", acp: { agent: "gemini" }, settingSources: [] });
  // @ts-expect-error: the system prompt is Claude Code's
  use({ backend: "acp", acp: { agent: "gemini" }, systemPrompt: { type: "preset", preset: "claude_code" } });
  // @ts-expect-error: subagents are Claude Code's
  use({ backend: "acp", acp: { agent: "gemini" }, agents: {} });
  // @ts-expect-error: plugins are Claude Code's
  use({ backend: "acp", acp: { agent: "gemini" }, plugins: [] });
  // @ts-expect-error: the model is each ACP agent's own configuration
  use({ backend: "acp", acp: { agent: "gemini" }, model: "gemini-2.5-pro" });
}

export function claudeOnlyOnCursor(): void {
  // @ts-expect-error: hooks are Claude Code's
  use({ backend: "cursor", hooks: {} });
  // @ts-expect-error: settings files are Claude Code's
  use({ backend: "cursor", settingSources: ["user"] });
  // @ts-expect-error: the system prompt is Claude Code's
  use({ backend: "cursor", systemPrompt: "be brief" });
  // @ts-expect-error: subagents are Claude Code's
  use({ backend: "cursor", agents: {} });
  // @ts-expect-error: plugins are Claude Code's
  use({ backend: "cursor", plugins: [] });
  // @ts-expect-error: Cursor's print mode has no permission callback
  use({ backend: "cursor", canUseTool: async () => ({ behavior: "allow" }) });
  // @ts-expect-error: Cursor's print mode takes no MCP servers
  use({ backend: "cursor", mcpServers: {} });
}

// ── each backend's section is rejected on the others ──

export function codexSectionElsewhere(): void {
  // @ts-expect-error: backend omitted is Claude
  use({ codex: { sandboxMode: "read-only" } });
  // @ts-expect-error: Claude
  use({ backend: "claude", codex: { sandboxMode: "read-only" } });
  // @ts-expect-error: ACP
  use({ backend: "acp", acp: { agent: "gemini" }, codex: {} });
  // @ts-expect-error: Cursor
  use({ backend: "cursor", codex: {} });
}

export function acpSectionElsewhere(): void {
  // @ts-expect-error: backend omitted is Claude
  use({ acp: { agent: "gemini" } });
  // @ts-expect-error: Claude
  use({ backend: "claude", acp: { agent: "gemini" } });
  // @ts-expect-error: Codex
  use({ backend: "codex", acp: { agent: "gemini" } });
  // @ts-expect-error: Cursor
  use({ backend: "cursor", acp: { agent: "gemini" } });
}

export function cursorSectionElsewhere(): void {
  // @ts-expect-error: backend omitted is Claude
  use({ cursor: { mode: "ask" } });
  // @ts-expect-error: Claude
  use({ backend: "claude", cursor: { mode: "ask" } });
  // @ts-expect-error: Codex
  use({ backend: "codex", cursor: { mode: "ask" } });
  // @ts-expect-error: ACP
  use({ backend: "acp", acp: { agent: "gemini" }, cursor: { mode: "ask" } });
}

export function officialOptionsThatCannotApply(): void {
  // @ts-expect-error: the CLI is a native binary; there is no JavaScript runtime to choose
  use({ executable: "node" });
  // @ts-expect-error: a backend that does not exist
  use({ backend: "gemini" });
}

declare const any: AgentOptions;

export function aVariableTypedForOneBackend(): void {
  const codex: CodexAgentOptions = { backend: "codex", codex: { networkAccess: true } };
  // @ts-expect-error: reading a Claude-only option off Codex options
  void codex.hooks;
  use(codex);
  // The union offers only what every backend has…
  void any.cwd;
  // @ts-expect-error: …so a Claude-only field needs the backend narrowed first
  void any.hooks;
  if (any.backend === undefined || any.backend === "claude") void any.hooks;
}

// ── the helper types ──

export type BackendOfCases = [
  Expect<Equal<BackendOf<{ backend: "codex" }>, "codex">>,
  Expect<Equal<BackendOf<{ backend: "acp"; acp: { agent: "gemini" } }>, "acp">>,
  Expect<Equal<BackendOf<{ cwd: string }>, "claude">>,
  Expect<Equal<BackendOf<ClaudeAgentOptions>, "claude">>,
  Expect<Equal<BackendOf<CursorAgentOptions>, "cursor">>,
  Expect<Equal<BackendOf<AgentOptions>, BackendKind>>,
  Expect<Equal<OptionsFor<"codex">, CodexAgentOptions>>,
  Expect<Equal<OptionsFor<"acp">, AcpAgentOptions>>,
  Expect<Equal<OptionsFor<BackendKind>, AgentOptions>>,
];

export type PortableLimitsInTheCore = Expect<
  Extends<"maxTurns" | "maxBudgetUsd" | "maxBudgetTokens" | "timeoutMs", keyof CommonOptions>
>;

// ── one definition: the types, the support table and the schema agree ──

/** The schema's input: what the run-time check lets through, by option. */
type SchemaInput = z.input<ReturnType<typeof agentOptionsSchema>>;

/** The options of `T` whose type allows a value the schema's type does not (field by field). */
type NotInSchema<T> = Exclude<
  {
    [K in keyof T]: K extends keyof SchemaInput ? ([T[K]] extends [SchemaInput[K]] ? never : K) : K;
  }[keyof T],
  undefined
>;

/** Official options refused everywhere (with a reason): in the table and the schema, in no type. */
type RefusedEverywhere = "executable" | "executableArgs";

export type OneDefinition = [
  // Every option the table lists is in the schema, and the reverse.
  Expect<Equal<keyof SchemaInput, OptionName>>,
  // Every option of some backend's type is in the table, and the reverse.
  Expect<Equal<keyof ResolvedOptions | RefusedEverywhere, OptionName>>,
  // Each backend's type has exactly the table's options for that backend.
  Expect<Equal<keyof ClaudeAgentOptions, OptionNamesOf<"claude">>>,
  Expect<Equal<keyof CodexAgentOptions, OptionNamesOf<"codex">>>,
  Expect<Equal<keyof CursorAgentOptions, OptionNamesOf<"cursor">>>,
  Expect<Equal<keyof AcpAgentOptions, OptionNamesOf<"acp">>>,
  Expect<Equal<keyof CommonOptions, CommonOptionName>>,
  // Every value a backend's type allows passes the schema's type (so the schema never refuses a
  // well-typed option for its shape; the refinements, such as "not a flag", are run-time rules).
  // Three differ only because the schema's objects there are loose (a newer CLI's fields pass
  // through, so the input type has an index signature an interface lacks).
  Expect<Equal<NotInSchema<ResolvedOptions>, "hooks" | "mcpServers" | "toolConfig">>,
  Expect<Equal<NonNullable<SchemaInput["backend"]>, BackendKind>>,
  // The sections and the plain values are the same both ways (where the schema has a type).
  Expect<Equal<SchemaInput["cursor"], CursorAgentOptions["cursor"]>>,
  Expect<Equal<SchemaInput["acp"], AcpAgentOptions["acp"]>>,
  Expect<
    Equal<
      Omit<NonNullable<SchemaInput["codex"]>, "config">,
      Omit<NonNullable<CodexAgentOptions["codex"]>, "config">
    >
  >,
  Expect<Equal<SchemaInput["permissionMode"], ClaudeAgentOptions["permissionMode"]>>,
  Expect<Equal<SchemaInput["effort"], ClaudeAgentOptions["effort"]>>,
  Expect<Equal<SchemaInput["settingSources"], ClaudeAgentOptions["settingSources"]>>,
  Expect<Equal<SchemaInput["tools"], ClaudeAgentOptions["tools"]>>,
];
