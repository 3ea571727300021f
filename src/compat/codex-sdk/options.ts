/**
 * The options of the official Codex SDK, by the same names: `CodexOptions` for the client,
 * `ThreadOptions` per thread, `TurnOptions` per turn; plus this SDK's additions, marked as such.
 */
/** A value of a `--config` override. */
export type CodexConfigValue = string | number | boolean | CodexConfigValue[] | CodexConfigObject;
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
/** What model-generated commands may touch. */
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";
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
