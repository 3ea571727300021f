/**
 * The options of the official Codex SDK, by the same names: `CodexOptions` for the client,
 * `ThreadOptions` per thread, `TurnOptions` per turn; plus this SDK's additions, marked as such.
 */
import type { TomlValue } from "../../backends/codex/config.js";
import type { SandboxMode as ProtocolSandboxMode } from "../../backends/codex/protocol.js";
import type { CanUseTool } from "../../permissions.js";

/** A value of a `--config` override (the Codex backend's TOML value). */
export type CodexConfigValue = TomlValue;
/** A table of `--config` overrides, flattened into dotted keys. */
export type CodexConfigObject = { [key: string]: CodexConfigValue };

/** Options of a {@link Codex} client. */
export interface CodexOptions {
  /** The `codex` executable (default: the usual discovery of code-agent-sdk). */
  codexPathOverride?: string;
  /** The API base URL (`--config openai_base_url=…`). */
  baseUrl?: string;
  /** The API key (`CODEX_API_KEY` in the CLI's environment). */
  apiKey?: string;
  /** `--config key=value` overrides, flattened to dotted keys and TOML-encoded. */
  config?: CodexConfigObject;
  /** Raw `--config` overrides, passed unchanged after `config`. */
  configOverrides?: string[];
  /** The CLI's whole environment; when given, `process.env` is not inherited. */
  env?: Record<string, string>;
}

/** When Codex asks before running a command. */
export type ApprovalMode = "never" | "on-request" | "on-failure" | "untrusted";
/** What model-generated commands may touch (the app-server protocol's sandbox modes). */
export type SandboxMode = ProtocolSandboxMode;
/** `model_reasoning_effort`. */
export type ModelReasoningEffort =
  | "minimal"
  | "low"
  | "medium"
  | "high"
  | "xhigh"
  | "max"
  | "ultra"
  | "persistent";
/** `web_search`. */
export type WebSearchMode = "disabled" | "cached" | "live";

/** Options of a {@link Thread}. */
export interface ThreadOptions {
  model?: string;
  /** Source classification applied when the thread is first created (`--thread-source`). */
  threadSource?: string;
  sandboxMode?: SandboxMode;
  workingDirectory?: string;
  skipGitRepoCheck?: boolean;
  modelReasoningEffort?: ModelReasoningEffort;
  networkAccessEnabled?: boolean;
  webSearchMode?: WebSearchMode;
  webSearchEnabled?: boolean;
  approvalPolicy?: ApprovalMode;
  additionalDirectories?: string[];
  /**
   * Addition of code-agent-sdk: decides Codex's approval requests (commands, file changes, MCP
   * tools) with the same callback as `query()`'s `canUseTool`, in the unified tool vocabulary.
   * Turns then run on `codex app-server` (exec cannot ask) and `approvalPolicy` defaults to
   * `untrusted`; the events keep exec's shapes (only tool items report their start, as in exec).
   */
  canUseTool?: CanUseTool;
}

/** The Cyber access program of a turn (built-in OpenAI provider only). */
export type CyberAccessProgram = "standard" | "daybreak_blue" | "daybreak_red";

/** Options of one turn. */
export interface TurnOptions {
  cyberAccessProgram?: CyberAccessProgram;
  /** A JSON schema the agent's final answer must follow. */
  outputSchema?: unknown;
  /** Aborts the turn: the CLI's whole process group is ended. */
  signal?: AbortSignal;
}

/** An input item. */
export type UserInput = { type: "text"; text: string } | { type: "local_image"; path: string };
/** A prompt: text, or text and local images. */
export type Input = string | UserInput[];
