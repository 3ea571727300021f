/**
 * The caller's AI SDK tools (with `execute`) served to the agent by an in-process MCP server, so
 * they run in the caller's process. Only the claude backend routes in-process MCP servers.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidOptionsError } from "../errors.js";
import { createSdkMcpServer, type SdkMcpServer, tool, type ZodShape } from "../mcp/tool.js";
import { mcpToolName, parseMcpToolName } from "../tools.js";
import { describeError, trySerialise } from "../wire/safe-json.js";

/** The in-process MCP server's name: the agent sees a tool `t` as `mcp__aisdk__t`. */
export const TOOLS_SERVER = "aisdk";

/**
 * An AI SDK tool as `tool()` from `ai` makes it, as far as this provider reads it: an input
 * schema that is a zod object (`z.object({...})`), and `execute`.
 */
export interface CodeAgentTool {
  description?: string;
  /** A zod object schema (`z.object({ … })`). */
  inputSchema: unknown;
  /** Runs the tool; its value (or, for a streaming tool, its last value) is the tool's result. */
  execute?(
    input: any,
    options: { toolCallId: string; messages: never[]; abortSignal?: AbortSignal },
  ): unknown;
}

/** The zod shape of a tool's input schema, or `undefined` when it is not a zod object. */
function shapeOf(schema: unknown): ZodShape | undefined {
  if (typeof schema !== "object" || schema === null || !("_zod" in schema)) return undefined;
  const shape = (schema as { shape?: unknown }).shape;
  return typeof shape === "object" && shape !== null ? (shape as ZodShape) : undefined;
}

/** A tool's value as MCP content: text as is, anything else as JSON. */
function toCallResult(value: unknown): CallToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  const s = trySerialise(value ?? null);
  if (!s.ok)
    return {
      content: [{ type: "text", text: `The tool's result has no JSON form: ${s.problem}` }],
      isError: true,
    };
  return { content: [{ type: "text", text: s.line }] };
}

async function lastValue(value: unknown): Promise<unknown> {
  if (typeof value === "object" && value !== null && Symbol.asyncIterator in value) {
    let last: unknown;
    for await (const v of value as AsyncIterable<unknown>) last = v;
    return last;
  }
  return await value;
}

/**
 * Builds the in-process MCP server for `tools`.
 * @throws InvalidOptionsError naming each tool without `execute` or without a zod object schema.
 */
export function toolsServer(tools: Record<string, CodeAgentTool>): {
  server: SdkMcpServer;
  allowed: string[];
} {
  const issues: string[] = [];
  const defs = [];
  for (const [name, t] of Object.entries(tools)) {
    const shape = shapeOf(t?.inputSchema);
    if (typeof t?.execute !== "function") issues.push(`sdkTools.${name}: has no execute function`);
    if (shape === undefined)
      issues.push(`sdkTools.${name}: inputSchema must be a zod object (z.object({ … }))`);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
      issues.push(`sdkTools.${name}: a tool name is 1-64 letters, digits, _ or -`);
    if (shape === undefined || typeof t?.execute !== "function") continue;
    const run = t.execute.bind(t);
    defs.push(
      tool(name, t.description ?? name, shape, async (args, extra) => {
        const signal = (extra as { signal?: unknown } | undefined)?.signal;
        const requestId = (extra as { requestId?: unknown } | undefined)?.requestId;
        try {
          const value = await lastValue(
            run(args, {
              toolCallId:
                typeof requestId === "string" || typeof requestId === "number" ? String(requestId) : name,
              messages: [],
              ...(signal instanceof AbortSignal ? { abortSignal: signal } : {}),
            }),
          );
          return toCallResult(value);
        } catch (error) {
          return { content: [{ type: "text", text: describeError(error) }], isError: true };
        }
      }),
    );
  }
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  return {
    server: createSdkMcpServer({ name: TOOLS_SERVER, tools: defs }),
    allowed: Object.keys(tools).map((n) => mcpToolName(TOOLS_SERVER, n)),
  };
}

/** The caller's name of one of its tools as the agent calls it (`mcp__aisdk__weather` → `weather`). */
export function callerToolName(name: string, tools: Record<string, CodeAgentTool> | undefined): string {
  const mcp = parseMcpToolName(name);
  if (tools && mcp?.server === TOOLS_SERVER && Object.hasOwn(tools, mcp.tool)) return mcp.tool;
  return name;
}
