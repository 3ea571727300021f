/**
 * Model ids of the AI SDK provider: `"<backend>"` or `"<backend>/<model>"` (`"acp/<preset>"` for
 * ACP agents). Parsed once, when the model is created, so a bad id fails before any process starts.
 */
import { InvalidOptionsError } from "../errors.js";
import { ACP_AGENT_PRESETS } from "../options/acp-presets.js";
import type { AcpAgentPreset, BackendKind } from "../options.js";

/** The ACP agents a model id may name (`"acp/gemini"`, …). */
export const ACP_PRESETS: readonly AcpAgentPreset[] = ACP_AGENT_PRESETS;

/**
 * A model id of the `code-agent-sdk/ai-sdk` provider: the backend, optionally followed by the
 * backend's model (`"claude/opus"`, `"codex/gpt-5.1-codex"`, `"cursor/sonnet-4"`), or `"acp/<preset>"`.
 */
export type CodeAgentModelId =
  | "claude"
  | `claude/${string}`
  | "codex"
  | `codex/${string}`
  | "cursor"
  | `cursor/${string}`
  | "acp"
  | `acp/${AcpAgentPreset}`;

/** The backend a model id names: `"codex"` for `"codex/gpt-5.1-codex"`. */
export type BackendOfModelId<M extends CodeAgentModelId> =
  M extends `${infer B extends BackendKind}/${string}` ? B : M extends BackendKind ? M : never;

/** What a model id names. */
export interface ParsedModelId {
  backend: BackendKind;
  /** The backend's model (`--model`), when the id names one. */
  model?: string;
  /** The ACP agent preset, for `acp/<preset>`. */
  acpAgent?: AcpAgentPreset;
}

/** A model name may not look like a flag, hold whitespace or control characters, or be too long. */
const MODEL_NAME = /^[A-Za-z0-9._:@[\]][A-Za-z0-9._:@[\]/+-]{0,199}$/;

/**
 * Parses a model id.
 * @throws InvalidOptionsError for an unknown backend, an unknown ACP preset, or a model name that
 * could be read as a flag (starts with `-`) or holds whitespace or control characters.
 */
export function parseModelId(id: unknown): ParsedModelId {
  if (typeof id !== "string" || id === "") {
    throw new InvalidOptionsError([
      `modelId: must be a non-empty string such as "claude" or "codex/gpt-5.1-codex"`,
    ]);
  }
  const slash = id.indexOf("/");
  const head = slash === -1 ? id : id.slice(0, slash);
  const rest = slash === -1 ? undefined : id.slice(slash + 1);
  const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
  switch (head) {
    case "claude":
    case "codex":
    case "cursor": {
      if (rest === undefined) return { backend: head };
      if (!MODEL_NAME.test(rest)) {
        throw new InvalidOptionsError([
          `modelId ${shown}: the model after "${head}/" must be 1-200 letters, digits or . _ : @ [ ] / + - and must not start with "-"`,
        ]);
      }
      return { backend: head, model: rest };
    }
    case "acp": {
      if (rest === undefined) return { backend: "acp" };
      const preset = ACP_PRESETS.find((p) => p === rest);
      if (preset === undefined) {
        throw new InvalidOptionsError([
          `modelId ${shown}: unknown ACP agent; use one of ${ACP_PRESETS.map((p) => `"acp/${p}"`).join(", ")}, or "acp" with settings.acp.command`,
        ]);
      }
      return { backend: "acp", acpAgent: preset };
    }
    default:
      throw new InvalidOptionsError([
        `modelId ${shown}: unknown backend; use "claude", "claude/<model>", "codex", "codex/<model>", "cursor", "cursor/<model>" or "acp/<preset>"`,
      ]);
  }
}
