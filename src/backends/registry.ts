/**
 * Picks the backend for `options.backend`.
 *
 * A backend is loaded on first use, not when this package is imported: each one is its own chunk
 * of the bundle, with its option checks (zod/mini), which only a query on that backend needs. `getBackend` answers at once (name, capabilities);
 * `loadBackend` (which `query()` and `AgentSdkClient.connect()` await) loads the implementation.
 */
import { AgentSdkError, InvalidOptionsError } from "../errors.js";
import { loadMcpServer } from "../mcp/tool.js";
import type { AgentOptions, BackendKind } from "../options.js";
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

/**
 * Returns the backend for `kind` (default `"claude"`) without waiting for it to load. Its name and
 * capabilities are available at once, and `openSession` loads it if needed. `validateOptions`
 * needs it loaded (see {@link loadBackend}); every `query()` and `connect()` loads it first.
 *
 * @throws InvalidOptionsError for an unknown `kind`.
 */
export function getBackend(kind: BackendKind = "claude"): Backend {
  const entry = entryOf(kind);
  return loaded.get(kind) ?? new LazyBackend(kind, entry.capabilities);
}

/**
 * Loads the backend for `kind` (default `"claude"`) and resolves with it; its `validateOptions`
 * then runs synchronously. Loads once per process.
 *
 * @throws InvalidOptionsError for an unknown `kind`.
 */
export function loadBackend(kind: BackendKind = "claude"): Promise<Backend> {
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
 * besides: the MCP SDK when they name in-process (`type: "sdk"`) MCP servers.
 */
export async function backendFor(options: AgentOptions): Promise<Backend> {
  const backend = await loadBackend(options.backend);
  if (hasSdkMcpServer(options)) await loadMcpServer();
  return backend;
}

function hasSdkMcpServer(options: AgentOptions): boolean {
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

  validateOptions(options: AgentOptions): void {
    const backend = loaded.get(this.name);
    if (!backend) {
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
