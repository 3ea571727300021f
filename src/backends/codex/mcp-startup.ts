/**
 * Waiting for a thread's MCP servers before its first turn. `codex app-server` (0.169) answers
 * `thread/start` at once and starts the thread's MCP servers in the background, reporting each as
 * `mcpServer/startupStatus/updated` (`starting`, then `ready` or `failed`, which Codex itself sends
 * once the server's `startup_timeout_sec` — 10 s by default — has passed). A turn sent before a
 * server is ready goes to the model without that server's tools: the model's call to one fails and
 * the turn goes on without it, silently. So the first turn waits until every server the thread
 * starts has a final status, bounded by the SDK's own limit (it never fails the turn: the turn then
 * goes out as Codex would send it).
 */
import { asObject, isObject } from "../../wire/read.js";
import { tomlKey } from "./config.js";

/** The notification that reports one server's startup. */
export const MCP_STARTUP_STATUS = "mcpServer/startupStatus/updated";

/** The startup states of the servers of one thread, and a wait for all of them to be final. */
export class McpStartupGate {
  /** Servers still `starting`, by name. */
  private readonly starting = new Set<string>();
  /** Servers with a final status, by name. */
  private readonly settled = new Set<string>();
  private wake: (() => void) | undefined;

  /** @param expected The servers the thread was given (their status may not have come yet). */
  constructor(expected: Iterable<string>) {
    for (const name of expected) this.starting.add(name);
  }

  /** Takes one `mcpServer/startupStatus/updated` notification's params. */
  update(params: unknown): void {
    const { name, status } = asObject(params);
    if (typeof name !== "string" || typeof status !== "string") return;
    if (status === "starting") {
      if (!this.settled.has(name)) this.starting.add(name);
      return;
    }
    this.starting.delete(name);
    this.settled.add(name);
    if (this.starting.size === 0) this.wake?.();
  }

  /** The servers whose startup has not ended yet. */
  pending(): string[] {
    return [...this.starting];
  }

  /**
   * Resolves once no server is starting, or after `timeoutMs`, or when `signal` aborts (whatever
   * comes first; it never rejects). The timer does not keep the host alive.
   */
  settledWithin(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.starting.size === 0 || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      signal?.addEventListener("abort", done, { once: true });
      this.wake = done;
    });
  }
}

/**
 * The servers a thread started with `config` (its `thread/start` params) will report: each of
 * `mcpServers` that became a `mcp_servers.<name>` table not switched off (`enabled = false`).
 */
export function startingServers(
  mcpServers: unknown,
  config: Readonly<Record<string, unknown>> | undefined,
): string[] {
  if (!isObject(mcpServers) || !config) return [];
  return Object.keys(mcpServers).filter((name) => {
    const table = config[`mcp_servers.${tomlKey(name)}`];
    return table !== undefined && asObject(table).enabled !== false;
  });
}
