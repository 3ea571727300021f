/**
 * The CodeBuddy Code preset: the CLI ships inside `@tencent-ai/agent-sdk` (under `cli/`), whose
 * `exports` hide `package.json`; its `cli/bin/codebuddy` is a Node script without a `.js` suffix that
 * loads the bundle in-process, so it runs on this Node (no shebang, no PATH lookup of `node`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ACP_PRESETS, resolveAcpCommand } from "../../../src/backends/acp/presets.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("CodeBuddy Code preset", () => {
  it("is `codebuddy --acp`, the script bundled in @tencent-ai/agent-sdk run on this Node (installed here)", () => {
    expect(ACP_PRESETS.codebuddy).toMatchObject({ packageName: "@tencent-ai/agent-sdk", args: ["--acp"] });
    const found = resolveAcpCommand({ agent: "codebuddy" }, undefined, { env: {} });
    expect(found.command).toBe(process.execPath);
    expect(found.args).toHaveLength(2);
    expect(found.args[0]).toMatch(/@tencent-ai\/agent-sdk\/cli\/bin\/codebuddy$/);
    expect(found.args[1]).toBe("--acp");
    expect(found.name).toBe("codebuddy");
  });

  it("finds the package though its exports hide package.json (found from the main export)", () => {
    const dir = mkdtempSync(join(tmpdir(), "cas-acp-codebuddy-"));
    dirs.push(dir);
    const from = join(dir, "package.json");
    writeFileSync(from, "{}");
    const pkg = join(dir, "node_modules", "@tencent-ai", "agent-sdk");
    mkdirSync(join(pkg, "lib"), { recursive: true });
    mkdirSync(join(pkg, "cli", "bin"), { recursive: true });
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({
        name: "@tencent-ai/agent-sdk",
        main: "lib/index.js",
        exports: { ".": { require: "./lib/index.js", import: "./lib/index.js" } },
      }),
    );
    writeFileSync(join(pkg, "lib", "index.js"), "");
    const script = join(pkg, "cli", "bin", "codebuddy");
    writeFileSync(script, "#!/usr/bin/env node\n", { mode: 0o755 });
    expect(resolveAcpCommand({ agent: "codebuddy" }, undefined, { env: {}, resolveFrom: [from] })).toEqual({
      command: process.execPath,
      args: [script, "--acp"],
      name: "codebuddy",
    });
  });
});
