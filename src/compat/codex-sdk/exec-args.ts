/**
 * The command line of one `codex exec --experimental-json` turn, in the official Codex SDK's
 * argument order, so the CLI sees the same thing whichever SDK drives it.
 */
import { InvalidOptionsError } from "../../errors.js";
import type { CodexConfigObject, CodexConfigValue, CyberAccessProgram, ThreadOptions } from "./options.js";

/** What one turn needs on its command line. */
export interface ExecTurnArgs {
  config?: CodexConfigObject | undefined;
  configOverrides?: string[] | undefined;
  baseUrl?: string | undefined;
  thread: ThreadOptions;
  threadId: string | null;
  outputSchemaFile?: string | undefined;
  cyberAccessProgram?: CyberAccessProgram | undefined;
  images: string[];
}

/** The arguments after the executable. */
export function execTurnArgs(turn: ExecTurnArgs): string[] {
  const args = ["exec", "--experimental-json"];
  const config = (override: string) => args.push("--config", override);
  for (const override of flattenConfig(turn.config)) config(override);
  for (const override of turn.configOverrides ?? []) config(override);
  if (turn.baseUrl) config(`openai_base_url=${tomlValue(turn.baseUrl, "openai_base_url")}`);
  const t = turn.thread;
  if (t.model) args.push("--model", t.model);
  if (t.threadSource !== undefined && !turn.threadId) args.push("--thread-source", t.threadSource);
  if (t.sandboxMode) args.push("--sandbox", t.sandboxMode);
  if (t.workingDirectory) args.push("--cd", t.workingDirectory);
  for (const dir of t.additionalDirectories ?? []) args.push("--add-dir", dir);
  if (t.skipGitRepoCheck) args.push("--skip-git-repo-check");
  if (turn.outputSchemaFile) args.push("--output-schema", turn.outputSchemaFile);
  if (turn.cyberAccessProgram !== undefined) args.push("--cyber-access-program", turn.cyberAccessProgram);
  if (t.modelReasoningEffort) config(`model_reasoning_effort="${t.modelReasoningEffort}"`);
  if (t.networkAccessEnabled !== undefined)
    config(`sandbox_workspace_write.network_access=${t.networkAccessEnabled}`);
  if (t.webSearchMode) config(`web_search="${t.webSearchMode}"`);
  else if (t.webSearchEnabled === true) config(`web_search="live"`);
  else if (t.webSearchEnabled === false) config(`web_search="disabled"`);
  if (t.approvalPolicy) config(`approval_policy="${t.approvalPolicy}"`);
  if (turn.threadId) args.push("resume", turn.threadId);
  for (const image of turn.images) args.push("--image", image);
  return args;
}

/** `{ a: { b: 1 } }` → `["a.b=1"]`: nested tables become dotted keys, values TOML literals. */
export function flattenConfig(config: CodexConfigObject | undefined): string[] {
  if (config === undefined) return [];
  if (!isPlainObject(config)) throw new InvalidOptionsError(["config: must be a plain object"]);
  const out: string[] = [];
  const walk = (value: CodexConfigObject, prefix: string) => {
    const entries = Object.entries(value).filter(([, child]) => child !== undefined);
    if (prefix && entries.length === 0) out.push(`${prefix}={}`);
    for (const [key, child] of entries) {
      if (!key) throw new InvalidOptionsError(["config: keys must be non-empty strings"]);
      const path = prefix ? `${prefix}.${key}` : key;
      if (isPlainObject(child)) walk(child, path);
      else out.push(`${path}=${tomlValue(child, path)}`);
    }
  };
  walk(config, "");
  return out;
}

/** A TOML literal for a config value; a JSON string is a valid TOML basic string. */
export function tomlValue(value: CodexConfigValue, path: string): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InvalidOptionsError([`config.${path}: must be a finite number`]);
    return String(value);
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map((item, i) => tomlValue(item, `${path}[${i}]`)).join(", ")}]`;
  if (isPlainObject(value)) {
    const parts = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .map(
        ([key, child]) =>
          `${/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key)} = ${tomlValue(child, `${path}.${key}`)}`,
      );
    return `{${parts.join(", ")}}`;
  }
  throw new InvalidOptionsError([
    `config.${path}: ${value === null ? "cannot be null" : `unsupported ${typeof value}`}`,
  ]);
}

function isPlainObject(value: unknown): value is CodexConfigObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
