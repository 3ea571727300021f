/**
 * The compat entry's types have the official shapes: every type `@anthropic-ai/claude-agent-sdk`
 * 0.3.330's `sdk.d.ts` exports (but the generic ones) is checked, with the TypeScript compiler,
 * to be mutually assignable with ours of the same name and to have the same keys. Many of ours are derived from the core's
 * types (the backend's event, hook and option types); this is what keeps a change there from
 * changing the compat entry's public shapes unnoticed.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const officialDts = join(root, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts");
const officialCodexDts = join(root, "node_modules/@openai/codex-sdk/dist/index.d.ts");

/**
 * Types whose shapes differ on purpose or by approximation, checked as "same" below: assignable
 * both ways and the same keys. The messages carry `@anthropic-ai/sdk`'s Beta message types, which
 * the compat entry types by the fields this SDK reads; the process, transport and query handles
 * are this SDK's own (see docs/compat.md).
 */
const KNOWN_DIFFERENT = [
  "CanUseTool",
  "NonNullableUsage",
  "Options",
  "Query",
  "SDKAssistantMessage",
  "SDKControlGetContextUsageResponse",
  "SDKControlGetUsageResponse",
  "SDKControlRequest",
  "SDKMessage",
  "SDKPartialAssistantMessage",
  "SDKResultError",
  "SDKResultMessage",
  "SDKResultSuccess",
  "SDKUserMessage",
  "SDKUserMessageReplay",
  "SpareProcess",
  "SpawnedProcess",
  "Transport",
  "WarmQuery",
];

/**
 * Types assignable both ways whose keys differ: they stay open to fields a later CLI adds
 * (`[key: string]: unknown`), or name a field the official `.d.ts` leaves out.
 */
const OPEN_SHAPES = [
  "AccountInfo",
  "AgentDefinition",
  "AgentInfo",
  "ElicitationResult",
  "ForkSessionOptions",
  "GetSessionInfoOptions",
  "GetSessionMessagesOptions",
  "GetSubagentMessagesOptions",
  "ImportSessionToStoreOptions",
  "ListSessionsOptions",
  "ListSubagentsOptions",
  "McpHttpServerConfig",
  "McpSSEServerConfig",
  "McpSdkServerConfig",
  "McpSdkServerConfigWithInstance",
  "McpServerConfig",
  "McpServerConfigForProcessTransport",
  "McpServerStatus",
  "McpServerStatusConfig",
  "McpStdioServerConfig",
  "ModelInfo",
  "PermissionResult",
  "RewindFilesResult",
  "SDKControlInitializeResponse",
  "SDKSystemMessage",
  "SandboxSettings",
  "SessionMessage",
  "SessionMutationOptions",
  "SlashCommand",
];

function runTsc(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/**
 * The names among `names` whose official type (from `official`) and ours (from the compat entry
 * `entry`) are not the same: assignable both ways with the same keys, checked by tsc.
 */
async function differentShapes(official: string, entry: string, names: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(import.meta.dirname, ".type-shapes-"));
  try {
    const lines = [
      `import type * as O from "${official}";`,
      'import type * as C from "compat-entry";',
      "type Keys<T> = T extends unknown ? keyof T : never;",
      "type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? ([Keys<A>] extends [Keys<B>] ? ([Keys<B>] extends [Keys<A>] ? true : false) : false) : false) : false;",
      ...names.map((name) => `export const same_${name}: Same<C.${name}, O.${name}> = true;`),
    ];
    writeFileSync(join(dir, "shapes.ts"), `${lines.join("\n")}\n`);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(root, "tsconfig.json"),
        compilerOptions: { noEmit: true, rootDir: root, paths: { "compat-entry": [join(root, entry)] } },
        include: [],
        files: ["shapes.ts"],
      }),
    );
    const output = await runTsc(["-p", join(dir, "tsconfig.json")]);
    return output
      .split("\n")
      .filter((l) => l.includes("shapes.ts("))
      .map((l) => {
        const line = Number(/shapes\.ts\((\d+),/.exec(l)?.[1]);
        return lines[line - 1]?.match(/same_(\w+):/)?.[1] ?? l;
      })
      .sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("compat type shapes", () => {
  it("claude-agent-sdk: every non-generic official type is assignable both ways with ours and has the same keys, but the known few", async () => {
    const dts = readFileSync(officialDts, "utf8");
    const declared = /export (?:declare )?(?:type|interface) (\w+)\s*(<)?/g;
    const names = [
      ...new Set([...dts.matchAll(declared)].filter((m) => !m[2]).map((m) => m[1] as string)),
    ].sort();
    expect(names.length).toBeGreaterThan(200);
    const different = await differentShapes(
      "@anthropic-ai/claude-agent-sdk",
      "src/compat/claude-agent-sdk/index.ts",
      names,
    );
    expect(different).toEqual([...KNOWN_DIFFERENT, ...OPEN_SHAPES].sort());
  }, 300_000);

  it("codex-sdk: every official type is the same as ours, but ThreadOptions and the MCP tool call item", async () => {
    const dts = readFileSync(officialCodexDts, "utf8");
    const list = /export \{([^}]*)\}/.exec(dts)?.[1] ?? "";
    const names = [...list.matchAll(/type (\w+)/g)].map((m) => m[1] as string).sort();
    expect(names.length).toBeGreaterThan(25);
    const different = await differentShapes("@openai/codex-sdk", "src/compat/codex-sdk/index.ts", names);
    // ThreadOptions adds canUseTool; an MCP tool call's result content is `unknown[]` here (the
    // official: @modelcontextprotocol/sdk's ContentBlock), and so are the items and events holding it.
    expect(different).toEqual([
      "ItemCompletedEvent",
      "ItemStartedEvent",
      "ItemUpdatedEvent",
      "McpToolCallItem",
      "RunResult",
      "RunStreamedResult",
      "ThreadEvent",
      "ThreadItem",
      "ThreadOptions",
    ]);
  }, 300_000);
});
