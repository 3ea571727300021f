/**
 * The core install stays unchanged: `ai` and `@ai-sdk/provider` are optional peers, so nothing of
 * this package may load them at run time — the provider imports only their types, and the root
 * entry never reaches the provider.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<
  string,
  Record<string, unknown>
>;

describe("code-agent-sdk/ai-sdk entry", () => {
  it("imports ai and @ai-sdk/* for types only", () => {
    const dir = join(root, "src", "ai-sdk");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(join(dir, file), "utf8");
      const runtime = [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"((?:ai|@ai-sdk\/[^"]+))";/gms)];
      expect(runtime.map((m) => `${file}: ${m[1]}`)).toEqual([]);
      expect(text).not.toMatch(/import\(\s*"(ai|@ai-sdk\/[^"]+)"\s*\)/);
    }
  });

  it("the root entry does not reach the provider", () => {
    // Its doc comment names the subpath; no import or export reaches the folder.
    expect(readFileSync(join(root, "src", "index.ts"), "utf8")).not.toMatch(/from\s+"\.\/ai-sdk\//);
  });

  it("ai and @ai-sdk/provider are optional peers, and ./ai-sdk is exported", () => {
    expect(pkg.peerDependencies?.ai).toBe("^6.0.0 || ^7.0.0");
    expect(pkg.peerDependencies?.["@ai-sdk/provider"]).toBe("^3.0.0 || ^4.0.0");
    expect(pkg.peerDependenciesMeta?.ai).toEqual({ optional: true });
    expect(pkg.peerDependenciesMeta?.["@ai-sdk/provider"]).toEqual({ optional: true });
    expect(pkg.dependencies?.ai).toBeUndefined();
    expect(pkg.exports?.["./ai-sdk"]).toEqual({
      types: "./dist/ai-sdk/index.d.ts",
      import: "./dist/ai-sdk/index.js",
    });
  });
});
