/**
 * Type-level compatibility: programs written against the official SDKs' `.d.ts` compile unchanged
 * with the official module names resolved to the compat entry points (`paths` in a test tsconfig),
 * and also against the official packages themselves (so the programs are real uses of their API).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/**
 * Runs tsc without blocking this worker (a synchronous spawn of a long compile on a loaded machine
 * starves vitest's worker RPC); resolves with its exit status and output.
 */
function runTsc(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output: Buffer.concat(chunks).toString("utf8") }));
  });
}

async function compile(
  project: string,
  moduleName = "@openai/codex-sdk",
): Promise<{ status: number | null; output: string; resolved: string }> {
  // --traceResolution is verbose (the official Claude types pull in @anthropic-ai/sdk).
  const { status, output } = await runTsc(["-p", join(import.meta.dirname, project), "--traceResolution"]);
  const escaped = moduleName.replace(/[/.*+?^${}()|[\]\\-]/g, "\\$&");
  const resolved =
    new RegExp(`Module name '${escaped}' was successfully resolved to '([^']+)'`).exec(output)?.[1] ?? "";
  return {
    status,
    output: output
      .split("\n")
      .filter((l) => l.includes("error TS"))
      .join("\n"),
    resolved,
  };
}

describe("type-level compatibility", () => {
  it("the Codex program compiles against @openai/codex-sdk itself", async () => {
    const result = await compile("tsconfig.official.json");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("node_modules/@openai/codex-sdk/");
    expect(result.status).toBe(0);
  });

  it("the same program compiles unchanged against code-agent-sdk/compat/codex-sdk", async () => {
    const result = await compile("tsconfig.compat.json");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("src/compat/codex-sdk/index.ts");
    expect(result.status).toBe(0);
  });

  it("the Claude program compiles against @anthropic-ai/claude-agent-sdk itself", async () => {
    const result = await compile("tsconfig.claude-official.json", "@anthropic-ai/claude-agent-sdk");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("node_modules/@anthropic-ai/claude-agent-sdk/");
    expect(result.status).toBe(0);
  });

  it("the same program compiles unchanged against code-agent-sdk/compat/claude-agent-sdk", async () => {
    const result = await compile("tsconfig.claude-compat.json", "@anthropic-ai/claude-agent-sdk");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("src/compat/claude-agent-sdk/index.ts");
    expect(result.status).toBe(0);
  });

  it("the community AI SDK provider's shipped types (ai-sdk-provider-claude-code 4.1.0) check against ours with no more errors than against the official", async () => {
    // Its dist/index.d.ts, checked as a source file (skipLibCheck would skip a .d.ts), once with
    // the official module name resolved to the official .d.ts and once to our compat entry point.
    const root = join(import.meta.dirname, "..", "..");
    const provider = join(root, "node_modules", "ai-sdk-provider-claude-code");
    const dir = mkdtempSync(join(import.meta.dirname, ".provider-types-"));
    try {
      writeFileSync(join(dir, "provider.ts"), readFileSync(join(provider, "dist", "index.d.ts"), "utf8"));
      const errors = async (sdk: string) => {
        const config = join(dir, `tsconfig.${sdk === "official" ? "official" : "compat"}.json`);
        writeFileSync(
          config,
          JSON.stringify({
            compilerOptions: {
              target: "ES2022",
              module: "NodeNext",
              moduleResolution: "NodeNext",
              strict: true,
              skipLibCheck: true,
              noEmit: true,
              types: ["node"],
              typeRoots: [join(root, "node_modules", "@types")],
              paths: {
                "@anthropic-ai/claude-agent-sdk": [
                  sdk === "official"
                    ? join(root, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.d.ts")
                    : join(root, "src", "compat", "claude-agent-sdk", "index.ts"),
                ],
                // The provider's own @ai-sdk packages (spec v4), not the ones at the top of node_modules.
                "@ai-sdk/provider": [
                  join(provider, "node_modules", "@ai-sdk", "provider", "dist", "index.d.ts"),
                ],
                "@ai-sdk/provider-utils": [
                  join(provider, "node_modules", "@ai-sdk", "provider-utils", "dist", "index.d.ts"),
                ],
              },
            },
            files: ["provider.ts"],
          }),
        );
        const { output } = await runTsc(["-p", config]);
        return output.split("\n").filter((l) => l.includes("error TS"));
      };
      const official = await errors("official");
      const ours = await errors("compat");
      expect(official).toEqual([]);
      expect(ours.length).toBeLessThanOrEqual(official.length);
      expect(ours).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
