/** ACP option checks and agent discovery: nothing is spawned. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acpArgs } from "../../../src/backends/acp/backend.js";
import { ACP_PRESETS, resolveAcpCommand, withPresetEnv } from "../../../src/backends/acp/presets.js";
import { validateAcpOptions } from "../../../src/backends/acp/validate.js";
import {
  CliNotFoundError,
  InvalidOptionsError,
  loadBackend,
  UnsupportedOptionsError,
} from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "cas-acp-opts-"));
  dirs.push(dir);
  return dir;
}

describe("validateAcpOptions", () => {
  it("needs an agent: a preset, a command, or cliPath", () => {
    expect(() => validateAcpOptions({ backend: "acp" })).toThrow(InvalidOptionsError);
    expect(() => validateAcpOptions({ backend: "acp", acp: { agent: "gemini" } })).not.toThrow();
    expect(() =>
      validateAcpOptions({ backend: "acp", acp: { command: "my-agent", args: ["--acp"] } }),
    ).not.toThrow();
    expect(() => validateAcpOptions({ backend: "acp", cliPath: "/x/agent" })).not.toThrow();
  });

  it("rejects an unknown preset and unknown acp keys through the schema", () => {
    expect(() => validateAcpOptions({ backend: "acp", acp: { agent: "auggie" } })).toThrow(/acp\.agent/);
    expect(() => validateAcpOptions({ backend: "acp", acp: { agent: "gemini", yolo: true } })).toThrow(
      InvalidOptionsError,
    );
  });

  it("refuses what ACP cannot carry, all at once, and sdk MCP servers or a config path", () => {
    let error: unknown;
    try {
      validateAcpOptions({
        backend: "acp",
        acp: { agent: "qwen" },
        model: "m",
        permissionMode: "plan",
        hooks: {},
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    expect((error as UnsupportedOptionsError).options).toEqual(["model", "permissionMode", "hooks"]);
    expect(() =>
      validateAcpOptions({ backend: "acp", acp: { agent: "qwen" }, mcpServers: "/x.json" }),
    ).toThrow(/object, not a file path/);
    expect(() =>
      validateAcpOptions({
        backend: "acp",
        acp: { agent: "qwen" },
        mcpServers: { s: { type: "sdk", name: "s", instance: {} } },
      } as never),
    ).toThrow(/in-process/);
  });

  it("the other backends refuse the acp section", async () => {
    for (const name of ["claude", "codex", "cursor"] as const) {
      const backend = await loadBackend(name);
      expect(() => backend.validateOptions({ backend: name, acp: { agent: "gemini" } })).toThrow(
        UnsupportedOptionsError,
      );
    }
  });
});

describe("resolveAcpCommand", () => {
  it("an explicit command (acp.command or cliPath) keeps the preset's args unless acp.args replaces them", () => {
    expect(resolveAcpCommand({ agent: "gemini", command: process.execPath }, undefined, { env: {} })).toEqual(
      {
        command: process.execPath,
        args: ["--acp"],
        name: "gemini",
      },
    );
    const bin = scratch();
    writeFileSync(join(bin, "my-agent"), "#!/bin/sh\n", { mode: 0o755 });
    expect(
      resolveAcpCommand({ command: "my-agent", args: ["serve"] }, undefined, { env: { PATH: bin } }),
    ).toEqual({
      command: join(bin, "my-agent"),
      args: ["serve"],
      name: "my-agent",
    });
    expect(resolveAcpCommand({ agent: "qwen" }, process.execPath, { env: {} }).command).toBe(
      process.execPath,
    );
  });

  it("an explicit command that is not an executable file fails before anything runs, naming it", () => {
    const dir = scratch();
    const notExecutable = join(dir, "agent");
    writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 });
    for (const command of [notExecutable, join(dir, "missing"), dir]) {
      expect(() => resolveAcpCommand({ command }, undefined, { env: {} })).toThrow(CliNotFoundError);
    }
    const error = (() => {
      try {
        resolveAcpCommand({ command: "no-such-agent" }, undefined, { env: { PATH: dir } });
      } catch (e) {
        return e as CliNotFoundError;
      }
    })();
    expect(error?.searched).toEqual([join(dir, "no-such-agent")]);
  });

  it("a preset's native platform binary wins over its npm launcher (codex-acp, installed here)", () => {
    const found = resolveAcpCommand({ agent: "codex-acp" }, undefined, { env: {} });
    expect(found.command).toMatch(/@zed-industries\/codex-acp-[^/]+\/bin\/codex-acp$/);
    expect(found.args).toEqual([]);
  });

  it("a JavaScript bin entry runs on this Node (claude-code-acp, installed here)", () => {
    const found = resolveAcpCommand({ agent: "claude-code-acp" }, undefined, { env: {} });
    expect(found.command).toBe(process.execPath);
    expect(found.args[0]).toMatch(/@zed-industries\/claude-code-acp\/dist\/index\.js$/);
  });

  it("falls back to PATH, and otherwise lists every place it looked", () => {
    const dir = scratch();
    const isolated = join(dir, "package.json");
    writeFileSync(isolated, "{}");
    const bin = join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "kilo"), "#!/bin/sh\n", { mode: 0o755 });
    expect(
      resolveAcpCommand({ agent: "kilo" }, undefined, { env: { PATH: bin }, resolveFrom: [isolated] }),
    ).toEqual({
      command: join(bin, "kilo"),
      args: ["acp"],
      name: "kilo",
    });
    let error: unknown;
    try {
      resolveAcpCommand({ agent: "opencode" }, undefined, { env: { PATH: bin }, resolveFrom: [isolated] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect((error as CliNotFoundError).searched).toContain(join(bin, "opencode"));
    expect((error as Error).message).toContain("npm install opencode-ai");
  });

  it("every preset names its package, executable and ACP flags", () => {
    expect(Object.keys(ACP_PRESETS).sort()).toEqual([
      "claude-code-acp",
      "cline",
      "codebuddy",
      "codex-acp",
      "copilot",
      "droid",
      "gemini",
      "kilo",
      "kimi",
      "opencode",
      "qwen",
    ]);
    expect(ACP_PRESETS.gemini.args).toEqual(["--acp"]);
    expect(ACP_PRESETS.opencode.args).toEqual(["acp"]);
  });

  it("Cline: the platform package's binary, found without the `cline` launcher package installed", () => {
    const found = resolveAcpCommand({ agent: "cline" }, undefined, { env: {} });
    expect(found.command).toMatch(/@cline\/cli-[^/]+\/bin\/cline$/);
    expect(found.args).toEqual(["--acp"]);
    expect(ACP_PRESETS.cline.native?.packages("win32", "x64")).toEqual(["@cline/cli-windows-x64"]);
  });

  it("a preset's environment defaults fill only what the caller's environment leaves unset (Cline's local backend)", () => {
    expect(withPresetEnv({ agent: "cline" }, { A: "1" })).toEqual({
      A: "1",
      CLINE_SESSION_BACKEND_MODE: "local",
    });
    expect(withPresetEnv({ agent: "cline" }, { CLINE_SESSION_BACKEND_MODE: "hub" })).toEqual({
      CLINE_SESSION_BACKEND_MODE: "hub",
    });
    const env = { A: "1" };
    expect(withPresetEnv({ agent: "qwen" }, env)).toBe(env);
    expect(withPresetEnv({ command: "x" }, env)).toBe(env);
  });

  it("extraArgs follow the agent's own arguments, each value one argv element", () => {
    expect(
      acpArgs({ command: "x", args: ["--acp"], name: "x" }, { extraArgs: { debug: null, model: "a b" } }),
    ).toEqual(["--acp", "--debug", "--model", "a b"]);
  });
});
