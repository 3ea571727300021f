/**
 * Routes the CLI's `mcp_message` control requests to in-process `McpServer`s. Each server is
 * connected to an in-memory MCP transport; a JSON-RPC request goes in through `onmessage` and the
 * answer comes back through `send`, matched by id.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport as McpTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { RawObject } from "../messages.js";
import type { McpSdkServerConfig, McpServerConfig } from "./config.js";
import { loadMcpServer } from "./tool.js";

type JsonRpcId = string | number;

/**
 * An MCP transport whose other end is a function call instead of a pipe. Each request goes in
 * under an id of its own and its answer comes back under the caller's id: the CLI may have two
 * requests with the same JSON-RPC id in flight (one per control request), and keying waiters by
 * the caller's id alone would hand one answer to both and lose the other.
 */
class InProcessTransport implements McpTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** By the id the server sees: who waits, and the id the caller used. */
  private readonly waiting = new Map<
    string,
    { callerId: JsonRpcId; resolve: (message: RawObject) => void }
  >();
  private nextId = 0;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const msg = message as RawObject;
    // Server-initiated requests and notifications (progress, logging) have no waiter; drop them.
    if ("method" in msg) return;
    const id = msg.id;
    if (typeof id !== "string") return;
    const waiter = this.waiting.get(id);
    if (waiter) {
      this.waiting.delete(id);
      waiter.resolve({ ...msg, id: waiter.callerId });
    }
  }

  async close(): Promise<void> {
    for (const { callerId, resolve } of this.waiting.values()) {
      resolve({ jsonrpc: "2.0", id: callerId, error: { code: -32000, message: "MCP server closed" } });
    }
    this.waiting.clear();
    this.onclose?.();
  }

  /** Delivers a notification; a cancellation is translated to the id the server saw. */
  notify(message: RawObject): void {
    const params = message.params as { requestId?: unknown } | undefined;
    if (message.method === "notifications/cancelled" && params && "requestId" in params) {
      const ours = [...this.waiting].find(([, w]) => w.callerId === params.requestId)?.[0];
      if (ours === undefined) return; // Already answered: nothing to cancel.
      message = { ...message, params: { ...params, requestId: ours } };
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  /** Delivers a request and resolves with the server's response, under the caller's id. */
  exchange(message: RawObject, signal: AbortSignal): Promise<RawObject> {
    const callerId = message.id as JsonRpcId;
    const id = `sdk-bridge-${this.nextId++}`;
    return new Promise<RawObject>((resolve) => {
      this.waiting.set(id, { callerId, resolve });
      signal.addEventListener(
        "abort",
        () => {
          if (!this.waiting.delete(id)) return;
          resolve({ jsonrpc: "2.0", id: callerId, error: { code: -32800, message: "Request cancelled" } });
        },
        { once: true },
      );
      this.onmessage?.({ ...message, id } as JSONRPCMessage);
    });
  }
}

/** The in-process MCP servers of one session. */
export class SdkMcpBridge {
  private readonly servers = new Map<string, { server: McpServer; transport: InProcessTransport }>();

  /** Picks the `type: "sdk"` entries out of `mcpServers`. */
  static sdkConfigs(
    mcpServers: Record<string, McpServerConfig> | string | undefined,
  ): Map<string, McpSdkServerConfig> {
    const configs = new Map<string, McpSdkServerConfig>();
    if (!mcpServers || typeof mcpServers === "string") return configs;
    for (const [key, config] of Object.entries(mcpServers)) {
      if (config.type === "sdk") configs.set(key, config);
    }
    return configs;
  }

  /** Connects every SDK server to its in-memory transport. */
  async start(configs: Map<string, McpSdkServerConfig>): Promise<void> {
    if (configs.size > 0) await loadMcpServer();
    for (const [key, config] of configs) {
      const server = config.createInstance ? config.createInstance() : config.instance;
      const transport = new InProcessTransport();
      await server.connect(transport);
      this.servers.set(key, { server, transport });
    }
  }

  /**
   * Makes `configs` the session's in-process servers (`setMcpServers()`): servers no longer listed
   * are disconnected, new ones connected, and the ones already running kept as they are.
   */
  async replace(configs: Map<string, McpSdkServerConfig>): Promise<void> {
    const gone = [...this.servers.entries()].filter(([key]) => !configs.has(key));
    for (const [key] of gone) this.servers.delete(key);
    await Promise.allSettled(gone.map(([, entry]) => entry.server.close()));
    await this.start(new Map([...configs].filter(([key]) => !this.servers.has(key))));
  }

  get names(): string[] {
    return [...this.servers.keys()];
  }

  /** Answers an `mcp_message` control request. */
  async handle(request: RawObject, signal: AbortSignal): Promise<RawObject> {
    const serverName = String(request.server_name ?? "");
    const message = (request.message ?? {}) as RawObject;
    const entry = this.servers.get(serverName);
    const id = (message.id as JsonRpcId | undefined) ?? null;
    if (!entry) {
      return {
        mcp_response: {
          jsonrpc: "2.0",
          id,
          error: { code: -32601, message: `SDK MCP server "${serverName}" not found` },
        },
      };
    }
    if (id === null) {
      // Notifications get no JSON-RPC answer, but the control request still needs one.
      entry.transport.notify(message);
      return { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } };
    }
    return { mcp_response: await entry.transport.exchange(message, signal) };
  }

  /** Disconnects every server (user-supplied instances become reusable). */
  async close(): Promise<void> {
    const entries = [...this.servers.values()];
    this.servers.clear();
    await Promise.allSettled(entries.map((e) => e.server.close()));
  }
}
