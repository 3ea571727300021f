/**
 * The provider's settings, and one call's AI SDK options → this SDK's `query()` options.
 */
import type { LanguageModelV3CallOptions, SharedV3Warning } from "@ai-sdk/provider";
import { InvalidOptionsError, UnsupportedOptionsError } from "../errors.js";
import type { ResolvedOptions } from "../options/resolved.js";
import type { BackendKind, OptionsFor } from "../options.js";
import type { Prompt, UserContentBlock } from "../prompt.js";
import type { WarmPool } from "../warm/warm-pool.js";
import { describeValue } from "../wire/safe-json.js";
import type { ParsedModelId } from "./model-id.js";
import type { ConvertedPrompt } from "./prompt.js";
import { type CodeAgentTool, TOOLS_SERVER, toolsServer } from "./tools.js";

/**
 * Settings of the provider (`createCodeAgent(defaults)`: defaults for the models of every backend):
 * this SDK's options of every backend (`cwd`, `env`, `canUseTool`, `permissionMode`, `codex`,
 * `acp`, …; each backend reads its own), and the provider's own ({@link CodeAgentProviderSettings}).
 * A model's settings are typed for the backend its id names: {@link CodeAgentSettingsFor}.
 */
export interface CodeAgentSettings
  extends Omit<ResolvedOptions, "backend" | "signal" | "outputFormat">,
    CodeAgentProviderSettings {}

/**
 * Settings of a model whose id names backend `B` (`codeAgent("codex/gpt-5.1-codex", settings)`):
 * that backend's options ({@link OptionsFor}), so an option the backend does not take is a compile
 * error, and the provider's own settings.
 */
export type CodeAgentSettingsFor<B extends BackendKind> = Omit<
  OptionsFor<B>,
  "backend" | "signal" | "outputFormat"
> &
  CodeAgentProviderSettings;

/** The provider's own settings, beside the backend's options. */
export interface CodeAgentProviderSettings {
  /**
   * AI SDK tools (`tool({ inputSchema: z.object(…), execute })` from `ai`) the agent may call; they
   * run in this process, served to the agent by an in-process MCP server (`mcp__aisdk__<name>`),
   * and are allowed without asking. Their calls reach the caller under the names given here.
   * Only the claude backend routes in-process MCP servers: elsewhere they are refused with
   * `UnsupportedOptionsError`.
   */
  sdkTools?: Record<string, CodeAgentTool>;
  /**
   * Whether a session id found in the conversation (the `providerMetadata.codeAgent.sessionId` of
   * the last assistant message) is resumed. A server whose clients send the history (`useChat`)
   * should pass a function that accepts only sessions it handed to that client. Default `true`. On
   * ACP the resume is `session/load` (what it replays is left out of the answer); an agent without
   * `session/load` gets the earlier turns as a text transcript in a new session instead (with a
   * warning).
   */
  resumeFromHistory?: boolean | ((sessionId: string) => boolean);
  /**
   * A pool of warm processes (`new WarmPool({ options })`, started with this model's backend and
   * the options it should run with) a call takes its process from, so the first token comes sooner.
   * A warm process runs with the pool's options only: a call that needs more (a session to resume,
   * a system message, structured output, `sdkTools`) starts a process of its own as without a pool.
   * Start the pool with `includePartialMessages: true` for Claude's live deltas.
   */
  warmPool?: Pick<WarmPool, "query">;
  /**
   * Where the agent's permission requests go. `"canUseTool"` (default): to `canUseTool` in these
   * settings (without one, the backend's own policy decides). `"ai-sdk"`: through the AI SDK's
   * tool-approval flow — each request is a `tool-approval-request` for the provider-executed tool
   * call and the call ends (finish reason `tool-calls`) while the CLI waits in this process; the
   * next call whose last message is a tool message answering it (`tool-approval-response`, as
   * `useChat`'s `addToolApprovalResponse` sends) runs the rest of the turn. Not with `canUseTool`,
   * nor on backends without permission requests (cursor). A request not answered within
   * `callbackTimeoutMs` (default 10 minutes) is denied and the waiting turn ended.
   */
  toolApproval?: "canUseTool" | "ai-sdk";
}

/** What one call runs: the prompt and options for `query()`, and what the mapping needs to know. */
export interface PreparedCall {
  prompt: Prompt;
  options: ResolvedOptions;
  /** JSON was asked for and the backend produces it natively. */
  nativeJson: boolean;
  /** The warm pool the call may take its process from: set only when the call needs nothing beyond the pool's options. */
  warmPool: Pick<WarmPool, "query"> | undefined;
  warnings: SharedV3Warning[];
}

const SAMPLING = [
  "maxOutputTokens",
  "temperature",
  "stopSequences",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "seed",
] as const;

/** Puts `text` ahead of the prompt. */
function prepend(text: string, prompt: string | UserContentBlock[]): string | UserContentBlock[] {
  return typeof prompt === "string" ? `${text}\n\n${prompt}` : [{ type: "text", text }, ...prompt];
}

/** Puts `text` after the prompt. */
function append(text: string, prompt: string | UserContentBlock[]): string | UserContentBlock[] {
  return typeof prompt === "string" ? `${prompt}\n\n${text}` : [...prompt, { type: "text", text }];
}

/**
 * Builds the `query()` call for one AI SDK call.
 * @throws UnsupportedOptionsError for `sdkTools` off the claude backend, and for function tools
 * the call names that are not `sdkTools` (their `execute` never reaches a provider).
 */
export function prepareCall(
  id: ParsedModelId,
  settings: CodeAgentSettings,
  call: LanguageModelV3CallOptions,
  converted: ConvertedPrompt,
  signal: AbortSignal,
): PreparedCall {
  const { sdkTools, resumeFromHistory: _resume, warmPool, toolApproval, ...rest } = settings;
  if (toolApproval !== undefined && toolApproval !== "canUseTool" && toolApproval !== "ai-sdk")
    throw new InvalidOptionsError([
      `toolApproval: must be "canUseTool" or "ai-sdk", got ${describeValue(toolApproval)}`,
    ]);
  if (toolApproval === "ai-sdk" && settings.canUseTool !== undefined)
    throw new InvalidOptionsError([
      'toolApproval: "ai-sdk" sends permission requests to the AI SDK caller; it cannot be combined with canUseTool',
    ]);
  const options: ResolvedOptions = { ...rest, backend: id.backend, signal };
  const warnings: SharedV3Warning[] = [...converted.warnings];
  let prompt = converted.prompt;

  if (id.model !== undefined) options.model = id.model;
  if (id.acpAgent !== undefined) options.acp = { ...settings.acp, agent: id.acpAgent };
  if (converted.resume !== undefined) options.resume = converted.resume;
  if (id.backend === "claude") options.includePartialMessages = true;

  for (const key of SAMPLING) {
    if (call[key] !== undefined)
      warnings.push({
        type: "unsupported",
        feature: key,
        details: "coding-agent CLIs do not take sampling settings",
      });
  }

  const callTools = (call.tools ?? []).filter((t) => t.type === "function").map((t) => t.name);
  const foreign = callTools.filter((name) => !(sdkTools && Object.hasOwn(sdkTools, name)));
  if (foreign.length > 0) {
    throw new UnsupportedOptionsError(id.backend, ["tools"], {
      tools: `${foreign.join(", ")}: a provider never receives a tool's execute; give the tools in the model's settings (sdkTools) instead`,
    });
  }
  if (sdkTools && Object.keys(sdkTools).length > 0) {
    if (id.backend !== "claude") {
      throw new UnsupportedOptionsError(id.backend, ["sdkTools"], {
        sdkTools: "in-process tools need the in-process MCP server, which only the claude backend routes",
      });
    }
    const { server, allowed } = toolsServer(sdkTools);
    const existing = typeof settings.mcpServers === "object" ? settings.mcpServers : {};
    if (typeof settings.mcpServers === "string") {
      throw new UnsupportedOptionsError(id.backend, ["sdkTools"], {
        sdkTools: "cannot be joined to mcpServers given as a config file path",
      });
    }
    options.mcpServers = { ...existing, [TOOLS_SERVER]: server };
    options.allowedTools = [...(settings.allowedTools ?? []), ...allowed];
  }

  if (converted.system !== undefined) {
    if (id.backend === "claude" && settings.systemPrompt === undefined) {
      options.systemPrompt = { type: "preset", preset: "claude_code", append: converted.system };
    } else {
      prompt = prepend(converted.system, prompt);
      warnings.push({
        type: "compatibility",
        feature: "system",
        details: "the system message was put ahead of the user's prompt",
      });
    }
  }

  let nativeJson = false;
  if (call.responseFormat?.type === "json") {
    const schema = call.responseFormat.schema;
    if ((id.backend === "claude" || id.backend === "codex") && schema !== undefined) {
      options.outputFormat = { type: "json_schema", schema: schema as Record<string, unknown> };
      nativeJson = true;
    } else {
      const described = schema === undefined ? "" : ` matching this JSON schema:\n${JSON.stringify(schema)}`;
      prompt = append(`Answer with only one JSON value${described}\nNo prose, no code fence.`, prompt);
      warnings.push({
        type: "compatibility",
        feature: "responseFormat",
        details: `the ${id.backend} backend has no native structured output: the schema was put in the prompt and the AI SDK validates the answer`,
      });
    }
  }
  const needsMore =
    toolApproval === "ai-sdk" ||
    converted.resume !== undefined ||
    converted.system !== undefined ||
    call.responseFormat?.type === "json" ||
    (sdkTools !== undefined && Object.keys(sdkTools).length > 0);
  return { prompt, options, nativeJson, warnings, warmPool: needsMore ? undefined : warmPool };
}

/** The `allowResume` test for {@link CodeAgentSettings.resumeFromHistory} (default: every session). */
export function resumeTest(
  settings: CodeAgentSettings,
  _backend: BackendKind,
): (sessionId: string) => boolean {
  const r = settings.resumeFromHistory;
  if (typeof r === "function") return r;
  const allowed = r ?? true;
  return () => allowed;
}
