/**
 * Picks the backend for `options.backend`.
 *
 * A backend is loaded on first use, not when this package is imported: each one is its own chunk
 * of the bundle, which only a query on that backend needs. `getBackend` answers at once (name,
 * capabilities); every `query()` and `AgentSdkClient.connect()` loads the implementation, and
 * `loadBackend` also warms it up (see `warmUpOnce`). Importing starts nothing: no timer, no load. A
 * host that stays up can ask for the Claude and Codex backends to be loaded and warmed up while it
 * is idle (`preloadWhenIdle()`).
 */
import { AgentSdkError, InvalidOptionsError } from "../errors.js";
import { loadMcpServer } from "../mcp/tool.js";
import { loadOptionSchema, optionSchemaLoaded, optionSchemaNeeded } from "../options/check.js";
import type { ResolvedOptions } from "../options/resolved.js";
import type { BackendKind } from "../options.js";
import { settleWithin } from "../signals/deadline.js";
import { describeError } from "../wire/safe-json.js";
import type { Backend, Capabilities, OpenSessionParams, Session } from "./backend.js";
import {
  ACP_CAPABILITIES,
  CLAUDE_CAPABILITIES,
  CODEX_CAPABILITIES,
  CURSOR_CAPABILITIES,
} from "./capabilities.js";

interface Entry {
  capabilities: Capabilities;
  load(): Promise<Backend>;
}

const entries: Record<BackendKind, Entry | undefined> = {
  claude: {
    capabilities: CLAUDE_CAPABILITIES,
    load: async () => new (await import("./claude/backend.js")).ClaudeBackend(),
  },
  codex: {
    capabilities: CODEX_CAPABILITIES,
    load: async () => new (await import("./codex/backend.js")).CodexBackend(),
  },
  cursor: {
    capabilities: CURSOR_CAPABILITIES,
    load: async () => new (await import("./cursor/backend.js")).CursorBackend(),
  },
  acp: {
    capabilities: ACP_CAPABILITIES,
    load: async () => new (await import("./acp/backend.js")).AcpBackend(),
  },
};

const loaded = new Map<BackendKind, Backend>();
const loading = new Map<BackendKind, Promise<Backend>>();
/** Set once the application asked for a backend (a query, a client, `loadBackend`). */
let requested = false;

/**
 * What {@link preloadWhenIdle} loads unless told otherwise, in this order: the backend a query
 * without `backend` uses, then the other CLI most hosts run.
 */
const DEFAULT_PRELOAD: readonly BackendKind[] = ["claude", "codex"];

/**
 * How many loop turns {@link preloadWhenIdle} waits for the host to show it is staying up, while the
 * only thing pending is file I/O (the module loader closing the files it read is such I/O).
 */
const IDLE_PRELOAD_TURNS = 20;

/**
/**
 * Asks for the backends to be loaded while the host is idle. Once the host's event loop comes
 * round, loads `kinds` in the background and runs each one's warm-up (one turn over an in-memory
 * stand-in, so V8 has compiled the code a first query runs): a first query on them then neither
 * waits for the backend's code nor pays for compiling it (together ~8 ms each in a fresh process,
 * see bench/README.md). Importing the package does none of this; call it at start-up in a host
 * that stays up (a server, a worker). Without `kinds`: the backends named in
 * `CODE_AGENT_SDK_PRELOAD` (comma-separated, `0` for none), else Claude, then Codex.
 *
 * Only for a host that stays up: the timer is unref'd, and while nothing but file I/O and the
 * standard streams are pending (how the end of a script looks) it looks again on the next turn, for
 * a few turns, so a host on its way out exits without loading anything. It stops as soon as the
 * application asks for a backend itself (that one is loading; the preload must not compete with
 * it), one backend per loop turn; a failure is left to the query that needs it. To wait for a
 * backend instead, `await loadBackend(kind)`.
 *
 * @throws InvalidOptionsError for an unknown backend in `kinds`.
 * @example
 * ```ts
 * import { preloadWhenIdle } from "code-agent-sdk";
 * preloadWhenIdle(["codex"]); // at start-up of a long-running host
 * ```
 */
export function preloadWhenIdle(kinds?: readonly BackendKind[]): void {
  const chosen = kinds ?? preloadSetting(process.env.CODE_AGENT_SDK_PRELOAD);
  for (const kind of chosen) entryOf(kind);
  scheduleIdlePreload([...new Set(chosen)]);
}

/** One step of {@link preloadWhenIdle}: the next backend, once the loop comes round idle. */
function scheduleIdlePreload(kinds: readonly BackendKind[], turnsLeft = IDLE_PRELOAD_TURNS): void {
  const [kind, ...rest] = kinds;
  if (kind === undefined) return;
  setTimeout(() => {
    if (requested) return;
    if (!hostStaysUp()) {
      if (turnsLeft > 1) scheduleIdlePreload(kinds, turnsLeft - 1);
      return;
    }
    Promise.all([loadOnce(kind), loadOptionSchema()])
      .then(([backend]) => (requested ? undefined : warmUpOnce(backend)))
      .then(
        () => scheduleIdlePreload(rest),
        () => undefined,
      );
  }, 0).unref();
}

/**
 * Whether something keeps the event loop running besides file I/O and the standard streams (which
 * a script on its way out has too): a socket, a timer, a child process, a server. Pending connect
 * and close requests are not handles of their own (on Node ≥ 22 a loader's unref'd IPC connection
 * shows up as `ConnectWrap`, then `CloseReq`); a socket they belong to still counts by its handle.
 */
function hostStaysUp(): boolean {
  return process
    .getActiveResourcesInfo()
    .some((resource) => !PASSING_RESOURCES.has(resource) && !resource.startsWith("FSReq"));
}

/** Resources a script on its way out has too. */
const PASSING_RESOURCES: ReadonlySet<string> = new Set(["PipeWrap", "TTYWrap", "ConnectWrap", "CloseReq"]);

/**
 * What `preloadWhenIdle()` without `kinds` loads, from `CODE_AGENT_SDK_PRELOAD`: unset or empty →
 * Claude, then Codex; backend names separated by commas (`codex`, `acp,claude`, …) → those, in that
 * order; `0` → none. Anything else is reported as a warning and preloads nothing.
 */
function preloadSetting(value: string | undefined): readonly BackendKind[] {
  if (value === undefined || value.trim() === "") return DEFAULT_PRELOAD;
  if (value.trim() === "0") return [];
  const names = value.split(",").map((name) => name.trim());
  if (names.every((name) => Object.hasOwn(entries, name))) return [...new Set(names)] as BackendKind[];
  process.emitWarning(
    `CODE_AGENT_SDK_PRELOAD=${JSON.stringify(value)} is neither 0 nor a list of backends (${Object.keys(entries).join(", ")}): nothing is preloaded`,
    { code: "CODE_AGENT_SDK_PRELOAD" },
  );
  return [];
}

/**
 * Returns the backend for `kind` (default `"claude"`) without waiting for it to load. Its name and
 * capabilities are available at once, and `openSession` loads it if needed. `validateOptions`
 * needs it loaded (see {@link loadBackend}); every `query()` and `connect()` loads it first.
 *
 * @throws InvalidOptionsError for an unknown `kind`.
 */
export function getBackend(kind: BackendKind = "claude"): Backend {
  const entry = entryOf(kind);
  const backend = loaded.get(kind);
  // Loaded by a query, whose plain options did not need the options schema: the lazy stand-in
  // loads what any options need before opening, and validates once `loadBackend` has run.
  return backend && optionSchemaLoaded() ? backend : new LazyBackend(kind, entry.capabilities);
}

/**
 * Loads the backend for `kind` (default `"claude"`) and resolves with it; its `validateOptions`
 * then runs synchronously. Loads once per process, and also warms it up once (Claude: one turn over
 * an in-memory stand-in, no process), so the first query neither loads nor compiles its code:
 * await it at start-up to take both out of the first query. (`query()` loads what it needs itself.)
 *
 * @throws InvalidOptionsError for an unknown `kind`.
 */
export async function loadBackend(kind: BackendKind = "claude"): Promise<Backend> {
  // Its validateOptions then takes any options synchronously: the options schema is loaded too.
  const [backend] = await Promise.all([startLoading(kind), loadOptionSchema()]);
  await warmUpOnce(backend);
  return backend;
}

/** Loads `kind` for the application (a query, a client): the idle warm-up is then not started. @internal */
export function startLoading(kind: BackendKind = "claude"): Promise<Backend> {
  requested = true;
  return loadOnce(kind);
}

const warmedUp = new Map<BackendKind, Promise<void>>();

/** A warm-up runs in memory in a few milliseconds; one still running after this is reported. */
const WARM_UP_BOUND_MS = 10_000;

/**
 * Runs `backend`'s warm-up once per process. A failure (or one past {@link WARM_UP_BOUND_MS}) is
 * reported as a process warning, not to the caller: it only means that the first query compiles
 * its code itself.
 */
function warmUpOnce(backend: Backend): Promise<void> {
  let pending = warmedUp.get(backend.name);
  if (!pending) {
    const work = backend.warmUp?.() ?? Promise.resolve();
    pending = settleWithin(work, {
      timeoutMs: WARM_UP_BOUND_MS,
      onTimeout: () => new Error(`still running after ${WARM_UP_BOUND_MS} ms`),
    }).catch((error: unknown) => {
      process.emitWarning(`the ${backend.name} backend's warm-up failed: ${describeError(error)}`, {
        code: "CODE_AGENT_SDK_WARM_UP",
      });
    });
    warmedUp.set(backend.name, pending);
  }
  return pending;
}

function loadOnce(kind: BackendKind): Promise<Backend> {
  const done = loaded.get(kind);
  if (done) return Promise.resolve(done);
  let pending = loading.get(kind);
  if (!pending) {
    let entry: Entry;
    try {
      entry = entryOf(kind);
    } catch (error) {
      return Promise.reject(error);
    }
    pending = entry.load().then((backend) => {
      loaded.set(kind, backend);
      return backend;
    });
    // A failed load (a broken installation) may be retried by a later call.
    pending.catch(() => loading.delete(kind));
    loading.set(kind, pending);
  }
  return pending;
}

/**
 * The backend for `options`, loaded, with what validating and opening with these options needs
 * besides: the options schema unless they are all plain options (`options/plain.ts`), the MCP SDK
 * when they name in-process (`type: "sdk"`) MCP servers.
 */
export async function backendFor(options: ResolvedOptions): Promise<Backend> {
  const backend = optionSchemaNeeded(options)
    ? (await Promise.all([startLoading(options.backend), loadOptionSchema()]))[0]
    : await startLoading(options.backend);
  if (hasSdkMcpServer(options)) await loadMcpServer();
  return backend;
}

function hasSdkMcpServer(options: ResolvedOptions): boolean {
  const servers = options.mcpServers;
  if (typeof servers !== "object" || servers === null) return false;
  return Object.values(servers).some((server) => (server as { type?: unknown } | null)?.type === "sdk");
}

function entryOf(kind: BackendKind): Entry {
  const entry = entries[kind];
  if (!entry) {
    throw new InvalidOptionsError([`backend: "${kind}" is not available in this version of code-agent-sdk`]);
  }
  return entry;
}

/** A backend that has not been loaded yet: it loads itself to open a session. */
class LazyBackend implements Backend {
  constructor(
    readonly name: BackendKind,
    readonly capabilities: Capabilities,
  ) {}

  validateOptions(options: ResolvedOptions): void {
    const backend = loaded.get(this.name);
    if (!backend || (!optionSchemaLoaded() && optionSchemaNeeded(options))) {
      throw new AgentSdkError(
        `The ${this.name} backend is not loaded yet: await loadBackend("${this.name}") before validating options with it`,
      );
    }
    backend.validateOptions(options);
  }

  async openSession(params: OpenSessionParams): Promise<Session> {
    return (await backendFor({ ...params.options, backend: this.name })).openSession(params);
  }
}
