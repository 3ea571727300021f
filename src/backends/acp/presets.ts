/**
 * The ACP agents this SDK knows by name: which npm package ships each, the flags of its ACP mode,
 * and where its executable is. Where a package ships a native binary in a platform package, that
 * binary is run directly: some npm launchers run it with `spawnSync` and do not pass SIGTERM on
 * (codex-acp's left the native process orphaned), so signalling the launcher is not enough.
 */
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { CliNotFoundError } from "../../errors.js";
import {
  CliSearch,
  defaultResolveRoots,
  executableName,
  isExecutableFile,
  isFile,
  packageResolvers,
  resolvePackageDirs,
} from "../../install/cli-discovery.js";
import type { AcpAgentPreset, AcpOptions } from "../../options.js";

/** What the backend knows about one agent. */
export interface AcpPreset {
  /** The npm package that ships the agent. */
  readonly packageName: string;
  /** Its executable's name (npm `bin` entry, and the name looked up on `PATH`). */
  readonly bin: string;
  /** The arguments that start its ACP server on stdio. */
  readonly args: readonly string[];
  /**
   * Platform packages holding the native binary (by `<os>-<arch>`, first that resolves wins) and
   * the binary's path inside them; absent when the package runs on Node itself.
   */
  readonly native?: { readonly packages: (os: string, arch: string) => string[]; readonly path: string };
  /**
   * A script of the package to run on this Node instead of its `bin` entry, with Node flags: for a
   * launcher that would start the real CLI as a child of its own with `spawnSync` (signals stop there).
   */
  readonly script?: { readonly path: string; readonly nodeArgs: readonly string[] };
  /**
   * Environment the agent's process gets where the caller's environment (inherited or `env`) has
   * no value for the name: what keeps the agent from leaving processes behind.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The oldest Node (`major.minor.patch`) its JavaScript entry runs on (the package's `engines`). On
   * an older Node the entry is passed over for the `bin` name on `PATH` (a native build), and
   * without one starting fails with a {@link CliNotFoundError} naming the requirement.
   */
  readonly minNode?: string;
}

/** The baseline (no AVX2) builds first on a CPU without AVX2, where the others crash. */
function byCpu(regular: string, baseline: string): string[] {
  return cpuHasAvx2() ? [regular, baseline] : [baseline, regular];
}

function cpuHasAvx2(): boolean {
  if (process.arch !== "x64" || process.platform !== "linux") return true;
  try {
    return /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return true;
  }
}

/** Every preset, by the name `acp.agent` takes. */
export const ACP_PRESETS: Readonly<Record<AcpAgentPreset, AcpPreset>> = Object.freeze({
  gemini: { packageName: "@google/gemini-cli", bin: "gemini", args: ["--acp"] },
  // Its `bin` (cli-entry.js) relaunches cli.js with --expose-gc through spawnSync: run that directly.
  qwen: {
    packageName: "@qwen-code/qwen-code",
    bin: "qwen",
    args: ["--acp"],
    script: { path: "cli.js", nodeArgs: ["--expose-gc"] },
  },
  opencode: {
    packageName: "opencode-ai",
    bin: "opencode",
    args: ["acp"],
    native: {
      packages: (os, arch) => byCpu(`opencode-${os}-${arch}`, `opencode-${os}-${arch}-baseline`),
      path: "bin/opencode",
    },
  },
  // `--no-auto-update`: a session must not download a new CLI behind the caller's back.
  copilot: {
    packageName: "@github/copilot",
    bin: "copilot",
    args: ["--acp", "--no-auto-update"],
    native: { packages: (os, arch) => [`@github/copilot-${os}-${arch}`], path: "copilot" },
  },
  kilo: {
    packageName: "@kilocode/cli",
    bin: "kilo",
    args: ["acp"],
    native: {
      packages: (os, arch) => byCpu(`@kilocode/cli-${os}-${arch}`, `@kilocode/cli-${os}-${arch}-baseline`),
      path: "bin/kilo",
    },
  },
  // `cline`'s own `bin` is a Node launcher of the platform binary: run the binary itself.
  cline: {
    packageName: "cline",
    bin: "cline",
    args: ["--acp"],
    // Sessions in this process: its default (`auto`) starts a detached hub daemon (own session,
    // fixed port 25463) that outlives the agent's process group and so the SDK's session.
    env: { CLINE_SESSION_BACKEND_MODE: "local" },
    native: {
      packages: (os, arch) => [`@cline/cli-${os === "win32" ? "windows" : os}-${arch}`],
      path: "bin/cline",
    },
  },
  // `exec --output-format acp` is Droid's ACP server. @factory/cli 0.225.1's launcher package needs a
  // platform package missing on npm, so a platform package installed on its own is found too.
  droid: {
    packageName: "@factory/cli",
    bin: "droid",
    args: ["exec", "--output-format", "acp"],
    native: {
      packages: (os, arch) => byCpu(`@factory/cli-${os}-${arch}`, `@factory/cli-${os}-${arch}-baseline`),
      path: "bin/droid",
    },
  },
  // The CLI is bundled in CodeBuddy's agent SDK; its `bin/codebuddy` (no .js) loads the bundle in-process.
  codebuddy: {
    packageName: "@tencent-ai/agent-sdk",
    bin: "codebuddy",
    args: ["--acp"],
    script: { path: "cli/bin/codebuddy", nodeArgs: [] },
  },
  // Kimi Code's bundle imports Node 22.19 APIs at load (node:zlib's createZstdDecompress): it fails
  // to start on Node 20, so it runs on this Node only from 22.19 on.
  kimi: { packageName: "@moonshot-ai/kimi-code", bin: "kimi", args: ["acp"], minNode: "22.19.0" },
  "claude-code-acp": { packageName: "@zed-industries/claude-code-acp", bin: "claude-code-acp", args: [] },
  "codex-acp": {
    packageName: "@zed-industries/codex-acp",
    bin: "codex-acp",
    args: [],
    native: { packages: (os, arch) => [`@zed-industries/codex-acp-${os}-${arch}`], path: "bin/codex-acp" },
  },
});

/**
 * `env` with the environment defaults of the agent `acp` names (see {@link AcpPreset.env}) added
 * where it has no value; `env` itself when there are none.
 */
export function withPresetEnv(
  acp: AcpOptions | undefined,
  env: Record<string, string>,
): Record<string, string> {
  const defaults = acp?.agent !== undefined ? ACP_PRESETS[acp.agent]?.env : undefined;
  if (defaults === undefined) return env;
  const out = { ...env };
  for (const [key, value] of Object.entries(defaults)) out[key] ??= value;
  return out;
}

/** How to start an agent: the executable and every argument before the caller's `extraArgs`. */
export interface AcpCommand {
  command: string;
  args: string[];
  /** The agent's name in errors and `serverInfo()`: the preset, else the executable's base name. */
  name: string;
}

/** Where package lookups start: this SDK's own dependencies, then the caller's project. */
export interface AcpDiscoveryContext {
  env: Record<string, string | undefined>;
  /** Files or URLs to resolve packages from. Default: this module, then `./package.json`. */
  resolveFrom?: string[];
  /** The Node version a JavaScript entry would run on (see `minNode`). Default: this process's. */
  nodeVersion?: string;
}

/**
 * Resolves the command that starts the agent of `acp`: `acp.command` (or `cliPath`) when given,
 * with the preset's arguments unless `acp.args` replaces them; else the preset's native binary,
 * its package's `bin` entry (a JavaScript entry runs on this Node, if it is as new as the preset's
 * `minNode`), a platform package of it installed on its own, or its name on `PATH` (not a link to
 * an entry passed over for being too new for this Node).
 *
 * @throws CliNotFoundError when a preset's agent is nowhere to be found, listing where it looked;
 *   when its entry was passed over, the message names the Node it needs and this one.
 */
export function resolveAcpCommand(
  acp: AcpOptions,
  cliPath: string | undefined,
  ctx: AcpDiscoveryContext,
): AcpCommand {
  const preset = acp.agent !== undefined ? ACP_PRESETS[acp.agent] : undefined;
  const args = [...(acp.args ?? preset?.args ?? [])];
  const explicit = cliPath ?? acp.command;
  if (explicit !== undefined) {
    const name = acp.agent ?? baseName(explicit);
    return { command: explicitCommand(explicit, name, ctx.env), args, name };
  }
  if (!preset || acp.agent === undefined) {
    // Validation requires a preset or a command; this is a programming error if it happens.
    throw new CliNotFoundError("acp agent", [], "Set acp.agent (a preset) or acp.command.");
  }
  const search = new CliSearch();
  const requires = packageResolvers(ctx.resolveFrom ?? defaultResolveRoots(import.meta.url));
  // Scripts this Node is too old for, passed over (and not taken again through a PATH link to them).
  const nodeVersion = ctx.nodeVersion ?? process.versions.node;
  const tooOld = preset.minNode !== undefined && !nodeAtLeast(nodeVersion, preset.minNode);
  const passedOver: string[] = [];
  for (const dir of packageDirs(requires, preset.packageName)) {
    const native = nativeBinary(preset, dir, search);
    if (native) return { command: native, args, name: acp.agent };
    if (preset.script) {
      const script = search.check(join(dir, preset.script.path), isFile);
      if (script && tooOld) passedOver.push(script);
      else if (script) {
        return {
          command: process.execPath,
          args: [...preset.script.nodeArgs, script, ...args],
          name: acp.agent,
        };
      }
    }
    const entry = binEntry(dir, preset.bin);
    if (entry && search.check(entry, isFile)) {
      // A JavaScript entry runs on this very Node: no shebang or PATH lookup in between.
      if (/\.(c|m)?js$/.test(entry)) {
        if (tooOld) passedOver.push(entry);
        else return { command: process.execPath, args: [entry, ...args], name: acp.agent };
      } else if (isExecutableFile(entry)) return { command: entry, args, name: acp.agent };
    }
  }
  // A platform package installed without its launcher package (as a direct dependency).
  const standalone = nativeBinaryFrom(preset, requires, search);
  if (standalone) return { command: standalone, args, name: acp.agent };
  const onPath = search.onPathThenCommon(ctx.env, executableName(preset.bin), []);
  if (onPath && !passedOver.some((p) => realPath(p) === realPath(onPath)))
    return { command: onPath, args, name: acp.agent };
  if (passedOver.length > 0) {
    throw new CliNotFoundError(
      acp.agent,
      search.searched,
      `${preset.packageName} at ${passedOver[0]} needs Node >= ${preset.minNode} (this is ${nodeVersion}): run on Node >= ${preset.minNode}, put a native '${preset.bin}' on PATH, or set acp.command / cliPath.`,
    );
  }
  throw new CliNotFoundError(
    acp.agent,
    search.searched,
    `Install it (npm install ${preset.packageName}), put '${preset.bin}' on PATH, or set acp.command / cliPath.`,
  );
}

/** Whether Node `version` (`22.23.3`) is at least `min` (`22.19.0`), compared numerically. */
export function nodeAtLeast(version: string, min: string): boolean {
  const have = version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const want = min.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(have.length, want.length); i++) {
    const a = have[i] ?? 0;
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** `path` with every link resolved, or as given when that fails. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * An explicit command: a path must be an executable file; a bare name is looked up on `PATH`.
 *
 * @throws CliNotFoundError naming the path, or every `PATH` entry looked at.
 */
function explicitCommand(command: string, name: string, env: Record<string, string | undefined>): string {
  const search = new CliSearch();
  if (/[\\/]/.test(command)) {
    if (search.check(command)) return command;
  } else {
    const found = search.onPathThenCommon(env, command, []);
    if (found) return found;
  }
  throw new CliNotFoundError(
    name,
    search.searched,
    `acp.command / cliPath '${command}' is not an executable file${/[\\/]/.test(command) ? "" : " on PATH"}.`,
  );
}

function nativeBinary(preset: AcpPreset, packageDir: string, search: CliSearch): string | undefined {
  return nativeBinaryFrom(preset, [createRequire(join(packageDir, "package.json"))], search);
}

/** The preset's native binary in the first of its platform packages that one of `requires` resolves. */
function nativeBinaryFrom(
  preset: AcpPreset,
  requires: NodeJS.Require[],
  search: CliSearch,
): string | undefined {
  if (!preset.native) return undefined;
  const os = process.platform === "android" ? "linux" : process.platform;
  for (const pkg of preset.native.packages(os, process.arch)) {
    for (const dir of requires.flatMap((req) => platformPackageDirs(req, pkg))) {
      const path =
        process.platform === "win32" ? `${join(dir, preset.native.path)}.exe` : join(dir, preset.native.path);
      const found = search.check(path);
      if (found) return found;
    }
  }
  return undefined;
}

/** Where package `pkg` is, as seen by each of `requires` (see {@link platformPackageDirs}), once each. */
function packageDirs(requires: NodeJS.Require[], pkg: string): string[] {
  return [...new Set(requires.flatMap((req) => platformPackageDirs(req, pkg)))];
}

/**
 * Where package `pkg` is, as seen by `req`. Some (`@github/copilot-<os>-<arch>`, CodeBuddy's
 * `@tencent-ai/agent-sdk`) export only their entry, not `package.json`: then the directory is found
 * from the export.
 */
function platformPackageDirs(req: NodeJS.Require, pkg: string): string[] {
  const dirs = resolvePackageDirs([req], pkg);
  if (dirs.length > 0) return dirs;
  let file: string;
  try {
    file = req.resolve(pkg);
  } catch {
    return [];
  }
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }).name === pkg) {
        return [dir];
      }
    } catch {
      // not the package root yet
    }
  }
  return [];
}

/** The file a package's `bin` entry named `name` points at (or its only one). */
function binEntry(packageDir: string, name: string): string | undefined {
  let manifest: { bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[name];
  return bin === undefined ? undefined : resolve(packageDir, bin);
}

function baseName(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  return base.length > 0 ? base : command;
}
