/**
 * Turns `ResolvedOptions` into Codex command lines and app-server parameters (verified against
 * codex 0.169.0).
 *
 * One-shot: `codex exec --json [flags…] [resume] -- [<id>] -` with the prompt on stdin, which is
 * then closed (an open stdin makes exec wait for more input). Exec flags go before `resume`: the
 * subcommand accepts neither `-C` nor `--sandbox` itself. The positional arguments follow `--`, so
 * none of them can be read as a flag (a thread id is a UUID anyway: see the options schema), and a
 * flag value that starts with `-` is joined to its flag (see `flagWithValue`).
 *
 * Sessions: `codex app-server [-c …]`; cwd, model, approval policy, sandbox and the MCP servers
 * travel in `thread/start` / `thread/resume`, the output schema and model switches in each
 * `turn/start`. MCP server tables (their `env`, `http_headers`, `args`, `url`) are never on the
 * command line, where any local user can read them: the backend runs one-shot queries that have
 * MCP servers on the app-server too (see `execCanRun`).
 */
import { resolve } from "node:path";
import type { ResolvedOptions } from "../../options/resolved.js";
import { flagWithValue } from "../../process/argv.js";
import { buildChildEnv } from "../../process/child-env.js";
import {
  CONFIG_KEYS,
  codexConfigOverrides,
  configArgs,
  foldIntoTables,
  type TomlValue,
  tomlValue,
} from "./config.js";
import type { ThreadStartParams } from "./protocol.js";

/** Files the exec command refers to, written by the session beforehand. */
export interface ExecFiles {
  /** Images attached to the prompt (`--image`). */
  images?: string[];
  /** The JSON schema of `outputFormat` (`--output-schema`). */
  outputSchema?: string;
}

/** The arguments after the executable for a one-shot `codex exec` run. */
export function buildExecArgs(options: ResolvedOptions, files: ExecFiles = {}): string[] {
  // exec cannot ask for approvals: it runs as if the policy were "never" (and exits on a
  // configured "untrusted"). Saying so keeps a user config.toml from breaking one-shot runs; the
  // policies that ask are served by the app-server (see `execCanRun`).
  const approval: [string, TomlValue] = [CONFIG_KEYS.approvalPolicy, "never"];
  return execCommandArgs({
    skipGitRepoCheck: options.codex?.skipGitRepoCheck ?? true,
    // Absolute: the process already runs in `cwd`, so a relative `--cd` would resolve twice.
    cwd: options.cwd === undefined ? undefined : resolve(options.cwd),
    model: options.model,
    sandboxMode: options.codex?.sandboxMode,
    addDirs: options.addDirs,
    outputSchemaFile: files.outputSchema,
    images: files.images,
    config: [approval, ...codexConfigOverrides(options)],
    extraArgs: options.extraArgs,
    resume: options.resume,
  });
}

/** A config override: a key and a value (TOML-encoded here), or a `key=value` written by the caller. */
export type ConfigOverride = [key: string, value: TomlValue] | string;

/**
 * One `codex exec` command line in the CLI's own terms. {@link buildExecArgs} fills it from
 * `ResolvedOptions`; the official Codex SDK's compat entry fills it from that SDK's options with
 * `layout: "official-sdk"`. Flag values that start with `-` are joined to their flag, and the
 * thread id follows `--`, in both layouts.
 */
export interface ExecCommandSpec {
  /**
   * `"backend"` (the default): `exec --json`, `-c` overrides, the images joined to `--image=` and
   * the prompt read from the `-` argument after `--`. `"official-sdk"`: the line
   * `@openai/codex-sdk` writes, so the CLI sees the same one whichever SDK drives it —
   * `exec --experimental-json`, `--config`, that SDK's flag order, the images after `resume`, no
   * prompt argument (exec reads stdin without one).
   */
  layout?: "backend" | "official-sdk" | undefined;
  model?: string | undefined;
  /** `--thread-source`: a new thread's source classification (left out when resuming). */
  threadSource?: string | undefined;
  sandboxMode?: string | undefined;
  /** `--cd`, as given. */
  cwd?: string | undefined;
  addDirs?: readonly string[] | undefined;
  skipGitRepoCheck?: boolean | undefined;
  outputSchemaFile?: string | undefined;
  cyberAccessProgram?: string | undefined;
  images?: readonly string[] | undefined;
  /** Overrides in the order applied (a later one wins). */
  config?: readonly ConfigOverride[] | undefined;
  /** Overrides applied after {@link config} ("official-sdk": written after the flags, as there). */
  settings?: readonly ConfigOverride[] | undefined;
  /** Flags of the caller's own: `{ "strict-config": null, enable: "x" }` → `--strict-config --enable x`. */
  extraArgs?: Readonly<Record<string, string | null>> | undefined;
  /** The thread to resume. */
  resume?: string | undefined;
}

type ExecPart = Exclude<keyof ExecCommandSpec, "layout" | "resume">;

/** Where each part goes, per layout (`images` of "official-sdk" follow `resume`). */
const EXEC_LAYOUT: Record<"backend" | "official-sdk", readonly ExecPart[]> = {
  backend: [
    "skipGitRepoCheck",
    "cwd",
    "model",
    "threadSource",
    "sandboxMode",
    "addDirs",
    "outputSchemaFile",
    "cyberAccessProgram",
    "images",
    "config",
    "settings",
    "extraArgs",
  ],
  "official-sdk": [
    "config",
    "model",
    "threadSource",
    "sandboxMode",
    "cwd",
    "addDirs",
    "skipGitRepoCheck",
    "outputSchemaFile",
    "cyberAccessProgram",
    "settings",
    "extraArgs",
  ],
};

/** The arguments after the executable for the `codex exec` line `spec` describes. */
export function execCommandArgs(spec: ExecCommandSpec): string[] {
  const official = spec.layout === "official-sdk";
  const override = (entry: ConfigOverride): string[] => {
    const text = typeof entry === "string" ? entry : `${entry[0]}=${tomlValue(entry[1])}`;
    return official ? flagWithValue("--config", text) : ["-c", text];
  };
  // `--image` takes several values: the `=` form keeps it from swallowing the `-` prompt argument.
  const images = (spec.images ?? []).flatMap((image) =>
    official ? flagWithValue("--image", image) : [`--image=${image}`],
  );
  const value = (flag: string, v: string | undefined) => (v !== undefined ? flagWithValue(flag, v) : []);
  const parts: Record<ExecPart, () => string[]> = {
    skipGitRepoCheck: () => (spec.skipGitRepoCheck ? ["--skip-git-repo-check"] : []),
    cwd: () => value("--cd", spec.cwd),
    model: () => value("--model", spec.model),
    threadSource: () => (spec.resume === undefined ? value("--thread-source", spec.threadSource) : []),
    sandboxMode: () => value("--sandbox", spec.sandboxMode),
    addDirs: () => (spec.addDirs ?? []).flatMap((dir) => flagWithValue("--add-dir", dir)),
    outputSchemaFile: () => value("--output-schema", spec.outputSchemaFile),
    cyberAccessProgram: () => value("--cyber-access-program", spec.cyberAccessProgram),
    images: () => images,
    config: () => (spec.config ?? []).flatMap(override),
    settings: () => (spec.settings ?? []).flatMap(override),
    extraArgs: () => flagArgs(spec.extraArgs),
  };
  const args = [
    "exec",
    official ? "--experimental-json" : "--json",
    ...EXEC_LAYOUT[official ? "official-sdk" : "backend"].flatMap((part) => parts[part]()),
  ];
  // The thread id comes after `--`: an id such as `--dangerously-bypass-approvals-and-sandbox`
  // can only be the id (the official SDK's own `resume <id>` would read it as that flag).
  if (official) {
    if (spec.resume !== undefined) args.push("resume", ...images, "--", spec.resume);
    else args.push(...images);
    return args;
  }
  if (spec.resume !== undefined) args.push("resume", "--", spec.resume);
  else args.push("--");
  args.push("-");
  return args;
}

/** Whether a config override is an MCP server table, which stays off the command line. */
function isMcpServerOverride([key]: [string, TomlValue]): boolean {
  return key.startsWith("mcp_servers.");
}

/**
 * The arguments after the executable for `codex app-server`. The MCP server tables go in
 * {@link threadParams} instead.
 */
export function buildAppServerArgs(options: ResolvedOptions): string[] {
  const overrides = codexConfigOverrides(options).filter((override) => !isMcpServerOverride(override));
  // The app-server has no --add-dir: extra writable roots are configuration.
  if (options.addDirs?.length) {
    overrides.unshift([CONFIG_KEYS.writableRoots, options.addDirs]);
  }
  return ["app-server", ...configArgs(overrides), ...flagArgs(options.extraArgs)];
}

/**
 * `thread/start` (and `thread/resume`) parameters. A `canUseTool` callback without an explicit
 * `codex.approvalPolicy` selects `untrusted`, so the callback is asked about everything but
 * known-safe read-only commands (under the CLI's own default it might never be asked).
 */
export function threadParams(options: ResolvedOptions): ThreadStartParams {
  const params: ThreadStartParams = { cwd: resolve(options.cwd ?? process.cwd()) };
  if (options.model !== undefined) params.model = options.model;
  const approvalPolicy = options.codex?.approvalPolicy ?? (options.canUseTool ? "untrusted" : undefined);
  if (approvalPolicy !== undefined) params.approvalPolicy = approvalPolicy;
  if (options.codex?.sandboxMode !== undefined) params.sandbox = options.codex.sandboxMode;
  // `codex.config` comes after the servers in the overrides, so a key of its own for a server
  // (`mcp_servers.x.enabled`) still applies on top of the thread's table.
  const servers = codexConfigOverrides(options).filter(isMcpServerOverride);
  if (servers.length > 0) params.config = foldIntoTables(servers);
  return params;
}

/**
 * The CLI's environment: `process.env` (unless `inheritEnv: false`), then `options.env` on top (an
 * `undefined` value removes the variable). Codex needs nothing of its own here.
 */
export function buildCodexEnv(options: Pick<ResolvedOptions, "env" | "inheritEnv">): Record<string, string> {
  return buildChildEnv(options);
}

/** `extraArgs` as flags: `{ "strict-config": null, enable: "x" }` → `--strict-config --enable x`. */
function flagArgs(extra: Readonly<Record<string, string | null>> | undefined): string[] {
  return Object.entries(extra ?? {}).flatMap(([flag, value]) =>
    value === null ? [`--${flag}`] : flagWithValue(`--${flag}`, value),
  );
}
