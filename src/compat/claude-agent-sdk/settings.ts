/**
 * `resolveSettings()` and `filterEscalatingDefaultMode()` of the official SDK: Claude Code's
 * settings cascade read from disk without starting the CLI.
 *
 * Order, lowest precedence first (Claude Code's documented order): user
 * (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`), project
 * (`<cwd>/.claude/settings.json`), local (`<cwd>/.claude/settings.local.json`), then the policy tier
 * (`managedSettings` filtered to restrictive keys, the machine's `managed-settings.json` and its
 * `managed-settings.d/*.json` drop-ins, `serverManagedSettings`). Objects merge key by key, arrays
 * are concatenated without duplicates, any other value is replaced.
 */

import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { InvalidOptionsError } from "../../errors.js";
import type {
  PolicySettingsOrigin,
  ProvenanceEntry,
  ResolvedSettingSource,
  ResolvedSettings,
  ResolveSettingsOptions,
  SettingSource,
  Settings,
} from "./types.js";

/** Largest settings file read (bytes); a larger file is treated as absent. */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

type Source = ResolvedSettings["sources"][number];
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads one settings file: a regular file holding a JSON object, else `undefined`. */
async function readSettingsFile(path: string): Promise<Json | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_SETTINGS_BYTES) return undefined;
    const text = await handle.readFile({ encoding: "utf8" });
    if (text.length > MAX_SETTINGS_BYTES) return undefined;
    const parsed: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    return isObject(parsed) && passesChecks(parsed) ? parsed : undefined;
  } catch {
    // Absent, unreadable or not JSON: Claude Code skips such a source too.
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === "string");
const MODES = new Set(["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"]);
/** Type checks of the common keys; a file failing one is skipped whole, as Claude Code skips it. */
const KEY_CHECKS: Record<string, (v: unknown) => boolean> = {
  model: (v) => typeof v === "string",
  apiKeyHelper: (v) => typeof v === "string",
  outputStyle: (v) => typeof v === "string",
  cleanupPeriodDays: (v) => typeof v === "number" && Number.isInteger(v) && v >= 0,
  includeCoAuthoredBy: (v) => typeof v === "boolean",
  disableAllHooks: (v) => typeof v === "boolean",
  env: (v) => isObject(v) && Object.values(v).every((x) => typeof x === "string"),
  hooks: isObject,
  sandbox: isObject,
  enabledPlugins: isObject,
  availableModels: isStrings,
  deniedModels: isStrings,
  permissions: (v) =>
    isObject(v) &&
    ["allow", "deny", "ask", "additionalDirectories"].every((k) => v[k] === undefined || isStrings(v[k])) &&
    (v.defaultMode === undefined || (typeof v.defaultMode === "string" && MODES.has(v.defaultMode))),
};

function passesChecks(settings: Json): boolean {
  return Object.entries(KEY_CHECKS).every(
    ([key, check]) => settings[key] === undefined || check(settings[key]),
  );
}

/** The machine's managed-settings directory on this platform. */
function managedDirectory(): string {
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode";
  if (process.platform === "win32") return "C:\\Program Files\\ClaudeCode";
  return "/etc/claude-code";
}

/** Restrictive keys `managedSettings` may set (the rest is dropped, as the official SDK does). */
const RESTRICTIVE_TOP = new Set([
  "allowManagedHooksOnly",
  "allowManagedMcpServersOnly",
  "allowManagedPermissionRulesOnly",
  "deniedMcpServers",
  "deniedModels",
  "allowedMcpServers",
  "availableModels",
  "strictKnownMarketplaces",
]);
const RESTRICTIVE_PERMISSIONS = new Set([
  "deny",
  "ask",
  "disableBypassPermissionsMode",
  "allow",
  "additionalDirectories",
]);
const RESTRICTIVE_SANDBOX = new Set(["enabled", "failIfUnavailable", "allowUnsandboxedCommands"]);
const RESTRICTIVE_SANDBOX_NESTED: Record<string, ReadonlySet<string>> = {
  network: new Set(["allowedDomains"]),
  filesystem: new Set(["denyRead"]),
};

function pick(value: unknown, keys: ReadonlySet<string>): Json | undefined {
  if (!isObject(value)) return undefined;
  const out: Json = {};
  for (const key of Object.keys(value)) if (keys.has(key)) out[key] = value[key];
  return Object.keys(out).length ? out : undefined;
}

function restrictive(settings: Json): Json {
  const out: Json = {};
  for (const key of Object.keys(settings)) {
    if (RESTRICTIVE_TOP.has(key) || (key.startsWith("allowManaged") && key.endsWith("Only"))) {
      out[key] = settings[key];
    }
  }
  const permissions = pick(settings.permissions, RESTRICTIVE_PERMISSIONS);
  if (permissions) out.permissions = permissions;
  if (isObject(settings.sandbox)) {
    const sandbox: Json = {};
    for (const [key, keys] of Object.entries(RESTRICTIVE_SANDBOX_NESTED)) {
      const nested = pick(settings.sandbox[key], keys);
      if (nested) sandbox[key] = nested;
    }
    Object.assign(sandbox, pick(settings.sandbox, RESTRICTIVE_SANDBOX));
    if (Object.keys(sandbox).length) out.sandbox = sandbox;
  }
  return out;
}

function merge(base: unknown, over: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(over)) {
    const out = [...base];
    for (const item of over) {
      const key = JSON.stringify(item);
      if (!out.some((existing) => JSON.stringify(existing) === key)) out.push(item);
    }
    return out;
  }
  if (isObject(base) && isObject(over)) {
    const out: Json = { ...base };
    for (const key of Object.keys(over)) {
      if (key === "__proto__") continue;
      out[key] = key in out ? merge(out[key], over[key]) : over[key];
    }
    return out;
  }
  return over;
}

const FILE_SOURCES: readonly SettingSource[] = ["user", "project", "local"];

/**
 * Resolves the effective Claude Code settings for `opts` (the settings cascade, not a security
 * decision). `effective.permissions.defaultMode` is reported as set by any tier; pass the result
 * through {@link filterEscalatingDefaultMode} before acting on it.
 */
export async function resolveSettings(opts: ResolveSettingsOptions = {}): Promise<ResolvedSettings> {
  if (!isObject(opts)) throw new InvalidOptionsError(["resolveSettings: options must be an object"]);
  const cwd = resolve(opts.cwd ?? process.cwd());
  const wanted = opts.settingSources ?? FILE_SOURCES;
  if (!Array.isArray(wanted)) throw new InvalidOptionsError(["settingSources: must be an array"]);
  const configHome =
    process.env.CLAUDE_CONFIG_DIR?.trim() && isAbsolute(process.env.CLAUDE_CONFIG_DIR.trim())
      ? process.env.CLAUDE_CONFIG_DIR.trim()
      : join(process.env.HOME?.trim() || homedir(), ".claude");
  const paths: Record<SettingSource, string> = {
    user: join(configHome, "settings.json"),
    project: join(cwd, ".claude", "settings.json"),
    local: join(cwd, ".claude", "settings.local.json"),
  };
  const sources: Source[] = [];
  for (const source of FILE_SOURCES) {
    if (!wanted.includes(source)) continue;
    const settings = await readSettingsFile(paths[source]);
    if (settings) sources.push({ source, settings: settings as Settings, path: paths[source] });
  }
  const managed = async (origin: PolicySettingsOrigin, settings: Json | undefined, path?: string) => {
    if (settings && Object.keys(settings).length) {
      sources.push({
        source: "managed",
        settings: settings as Settings,
        ...(path ? { path } : {}),
        policyOrigin: origin,
      });
    }
  };
  if (isObject(opts.managedSettings)) await managed("parent", restrictive(opts.managedSettings));
  const dir = managedDirectory();
  const managedFile = join(dir, "managed-settings.json");
  await managed("file", await readSettingsFile(managedFile), managedFile);
  const dropIns = await readdir(join(dir, "managed-settings.d")).catch(() => [] as string[]);
  for (const name of dropIns.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort()) {
    const path = join(dir, "managed-settings.d", name);
    await managed("file", await readSettingsFile(path), path);
  }
  if (isObject(opts.serverManagedSettings)) await managed("remote", opts.serverManagedSettings as Json);

  let effective: Json = {};
  const provenance: Partial<Record<string, ProvenanceEntry>> = {};
  for (const entry of sources) {
    effective = merge(effective, entry.settings) as Json;
    for (const key of Object.keys(entry.settings)) {
      provenance[key] = {
        source: entry.source as ResolvedSettingSource,
        ...(entry.path !== undefined ? { path: entry.path } : {}),
        ...(entry.policyOrigin ? { policyOrigin: entry.policyOrigin } : {}),
      };
    }
  }
  return {
    effective: effective as Settings,
    provenance: provenance as ResolvedSettings["provenance"],
    sources,
    machinePolicy: { didNotLoad: false },
  };
}

/** Modes that loosen permissions: set by a repo-committed tier they are dropped. */
const ESCALATING = new Set(["bypassPermissions", "auto", "acceptEdits"]);
/** Modes also refused from the local (uncommitted) tier. */
const ESCALATING_FROM_LOCAL = new Set(["auto", "bypassPermissions"]);

/**
 * Applies the trust filter Claude Code applies before honouring an escalating
 * `permissions.defaultMode` (`bypassPermissions`, `auto`, `acceptEdits`): set by the project tier
 * (for `auto` / `bypassPermissions` also the local tier), it is dropped from the returned
 * `effective`.
 */
export function filterEscalatingDefaultMode(resolved: ResolvedSettings): Settings {
  const effective = resolved.effective as Json;
  const permissions = isObject(effective.permissions) ? effective.permissions : undefined;
  const mode = permissions?.defaultMode;
  if (typeof mode !== "string" || !ESCALATING.has(mode)) return resolved.effective;
  for (let i = resolved.sources.length - 1; i >= 0; i--) {
    const entry = resolved.sources[i];
    const entryPermissions = (entry?.settings as Json | undefined)?.permissions;
    if (!entry || !isObject(entryPermissions) || entryPermissions.defaultMode === undefined) continue;
    const untrusted = ESCALATING_FROM_LOCAL.has(mode) ? ["project", "local"] : ["project"];
    if (!untrusted.includes(entry.source)) return resolved.effective;
    const { defaultMode: _dropped, ...rest } = permissions as Json;
    return { ...effective, permissions: rest } as Settings;
  }
  return resolved.effective;
}
