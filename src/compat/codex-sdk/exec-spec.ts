/**
 * The command line of one `codex exec --experimental-json` turn, in the official Codex SDK's
 * argument order, so the CLI sees the same thing whichever SDK drives it — except that nothing a
 * caller gives can become a flag: thread ids must be UUIDs and follow `--` (after the subcommand's
 * flags), the thread's values are checked when the thread is made (see {@link threadOptionIssues}),
 * and a flag value that still starts with `-` is joined to its flag.
 */
import { InvalidOptionsError } from "../../errors.js";
import { flagWithValue, looksLikeFlag, UUID_PATTERN } from "../../process/argv.js";
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
  const config = (override: string) => args.push(...flagWithValue("--config", override));
  const flag = (name: string, value: string) => args.push(...flagWithValue(name, value));
  for (const override of flattenConfig(turn.config)) config(override);
  for (const override of turn.configOverrides ?? []) config(override);
  if (turn.baseUrl) config(`openai_base_url=${tomlValue(turn.baseUrl, "openai_base_url")}`);
  const t = turn.thread;
  if (t.model) flag("--model", t.model);
  if (t.threadSource !== undefined && !turn.threadId) flag("--thread-source", t.threadSource);
  if (t.sandboxMode) flag("--sandbox", t.sandboxMode);
  if (t.workingDirectory) flag("--cd", t.workingDirectory);
  for (const dir of t.additionalDirectories ?? []) flag("--add-dir", dir);
  if (t.skipGitRepoCheck) args.push("--skip-git-repo-check");
  if (turn.outputSchemaFile) flag("--output-schema", turn.outputSchemaFile);
  if (turn.cyberAccessProgram !== undefined) flag("--cyber-access-program", turn.cyberAccessProgram);
  if (t.modelReasoningEffort) config(`model_reasoning_effort="${t.modelReasoningEffort}"`);
  if (t.networkAccessEnabled !== undefined)
    config(`sandbox_workspace_write.network_access=${t.networkAccessEnabled}`);
  if (t.webSearchMode) config(`web_search="${t.webSearchMode}"`);
  else if (t.webSearchEnabled === true) config(`web_search="live"`);
  else if (t.webSearchEnabled === false) config(`web_search="disabled"`);
  if (t.approvalPolicy) config(`approval_policy="${t.approvalPolicy}"`);
  if (turn.threadId) {
    // The id comes last, after `--`: the official SDK's `resume <id> --image …` would read an id
    // such as `--dangerously-bypass-approvals-and-sandbox` as that flag.
    const problem = threadIdIssue(turn.threadId);
    if (problem !== undefined) throw new InvalidOptionsError([problem]);
    args.push("resume");
    for (const image of turn.images) flag("--image", image);
    args.push("--", turn.threadId);
  } else {
    for (const image of turn.images) flag("--image", image);
  }
  return args;
}

/** Why `id` cannot be resumed (a Codex thread id is a UUID), or `undefined` when it can. */
export function threadIdIssue(id: unknown): string | undefined {
  if (typeof id === "string" && UUID_PATTERN.test(id)) return undefined;
  return `id: must be a Codex thread id, a UUID such as 01a2006c-d3d2-7562-819c-e668dc7cb903 (got ${
    typeof id === "string" ? JSON.stringify(id.slice(0, 80)) : typeof id
  })`;
}

/**
 * The thread options that would reach argv as an argument of their own starting with `-` (a
 * model, a directory, a thread source), as `path: message` strings; empty when none.
 */
export function threadOptionIssues(options: ThreadOptions): string[] {
  const values: [string, unknown][] = [
    ["model", options.model],
    ["threadSource", options.threadSource],
    ["sandboxMode", options.sandboxMode],
    ["workingDirectory", options.workingDirectory],
    ...(options.additionalDirectories ?? []).map((dir, i): [string, unknown] => [
      `additionalDirectories[${i}]`,
      dir,
    ]),
  ];
  return values
    .filter(([, value]) => typeof value === "string" && looksLikeFlag(value))
    .map(
      ([path]) =>
        `${path}: must not start with '-': the CLI would read it as an option (write a relative path as ./-name)`,
    );
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
