/**
 * Codex command lines and app-server parameters, option by option (codex 0.169.0 flags).
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildAppServerArgs,
  buildCodexEnv,
  buildExecArgs,
  threadParams,
} from "../../../src/backends/codex/command.js";
import {
  codexConfigOverrides,
  configArgs,
  foldIntoTables,
  tomlString,
  tomlValue,
} from "../../../src/backends/codex/config.js";

/** A thread id as codex 0.169.0 writes them (a UUIDv7). */
const THREAD = "01a2006c-d3d2-7562-819c-e668dc7cb903";

describe("buildExecArgs", () => {
  it("runs exec with JSON events, outside git checks, reading the prompt from stdin", () => {
    expect(buildExecArgs({})).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-c",
      'approval_policy="never"',
      "--",
      "-",
    ]);
  });

  it("maps cwd, model, sandbox and extra directories to their flags", () => {
    expect(
      buildExecArgs({
        cwd: "/work",
        model: "gpt-5.5",
        codex: { sandboxMode: "workspace-write" },
        addDirs: ["/a", "/b"],
      }),
    ).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--cd",
      "/work",
      "--model",
      "gpt-5.5",
      "--sandbox",
      "workspace-write",
      "--add-dir",
      "/a",
      "--add-dir",
      "/b",
      "-c",
      'approval_policy="never"',
      "--",
      "-",
    ]);
  });

  it("passes cwd absolute: the process already runs there, so a relative --cd would resolve twice", () => {
    const args = buildExecArgs({ cwd: "rel/dir" });
    expect(args[args.indexOf("--cd") + 1]).toBe(resolve("rel/dir"));
    expect(threadParams({ cwd: "rel/dir" }).cwd).toBe(resolve("rel/dir"));
  });

  it("keeps the git repository check when skipGitRepoCheck is false", () => {
    expect(buildExecArgs({ codex: { skipGitRepoCheck: false } })).not.toContain("--skip-git-repo-check");
  });

  it("attaches images with the = form so --image does not swallow the '-' prompt argument", () => {
    expect(buildExecArgs({}, { images: ["/t/1.png", "/t/2.jpg"], outputSchema: "/t/schema.json" })).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--output-schema",
      "/t/schema.json",
      "--image=/t/1.png",
      "--image=/t/2.jpg",
      "-c",
      'approval_policy="never"',
      "--",
      "-",
    ]);
  });

  it("always runs with approval policy 'never' (exec cannot ask), and passes effort, network access and config as -c", () => {
    const args = buildExecArgs({
      codex: {
        approvalPolicy: "never",
        reasoningEffort: "high",
        networkAccess: true,
        config: { "shell_environment_policy.inherit": "all", "tools.web_search": true, n: 3 },
      },
    });
    expect(args).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-c",
      'approval_policy="never"',
      "-c",
      'model_reasoning_effort="high"',
      "-c",
      "sandbox_workspace_write.network_access=true",
      "-c",
      'shell_environment_policy.inherit="all"',
      "-c",
      "tools.web_search=true",
      "-c",
      "n=3",
      "--",
      "-",
    ]);
  });

  it("maps the shared effort option to model_reasoning_effort", () => {
    expect(buildExecArgs({ effort: "low" })).toContain('model_reasoning_effort="low"');
  });

  it("registers stdio and http MCP servers as mcp_servers tables that approve their tools", () => {
    const args = buildExecArgs({
      mcpServers: {
        echo: { command: "node", args: ["echo.mjs"], env: { K: "v" } },
        "my srv": { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" } },
      },
    });
    expect(args).toContain(
      'mcp_servers.echo={ command = "node", args = ["echo.mjs"], env = { K = "v" }, default_tools_approval_mode = "approve" }',
    );
    expect(args).toContain(
      'mcp_servers."my srv"={ url = "http://127.0.0.1:9/mcp", http_headers = { Authorization = "Bearer x" }, default_tools_approval_mode = "approve" }',
    );
  });

  it("puts resume and extra flags after the exec flags, and the thread id and prompt argument after --", () => {
    expect(
      buildExecArgs({ resume: THREAD, cwd: "/w", extraArgs: { "strict-config": null, enable: "x" } }),
    ).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--cd",
      "/w",
      "-c",
      'approval_policy="never"',
      "--strict-config",
      "--enable",
      "x",
      "resume",
      "--",
      THREAD,
      "-",
    ]);
  });
});

describe("buildAppServerArgs", () => {
  it("starts the app-server with the shared config overrides", () => {
    expect(buildAppServerArgs({})).toEqual(["app-server"]);
    expect(buildAppServerArgs({ codex: { reasoningEffort: "minimal", config: { a: [1, "x"] } } })).toEqual([
      "app-server",
      "-c",
      'model_reasoning_effort="minimal"',
      "-c",
      'a=[1, "x"]',
    ]);
  });

  it("turns addDirs into writable roots (the app-server has no --add-dir)", () => {
    expect(buildAppServerArgs({ addDirs: ["/x"] })).toEqual([
      "app-server",
      "-c",
      'sandbox_workspace_write.writable_roots=["/x"]',
    ]);
  });

  it("does not pass the approval policy on the command line (thread/start carries it)", () => {
    expect(buildAppServerArgs({ codex: { approvalPolicy: "untrusted" } })).toEqual(["app-server"]);
  });
});

describe("threadParams", () => {
  it("always names the cwd and adds model, approval policy and sandbox when set", () => {
    expect(threadParams({})).toEqual({ cwd: process.cwd() });
    expect(
      threadParams({
        cwd: "/w",
        model: "gpt-5.5",
        codex: { approvalPolicy: "untrusted", sandboxMode: "read-only" },
      }),
    ).toEqual({ cwd: "/w", model: "gpt-5.5", approvalPolicy: "untrusted", sandbox: "read-only" });
  });

  it("asks for approvals ('untrusted') when canUseTool is given without an approval policy", () => {
    const canUseTool = () => ({ behavior: "allow" as const });
    expect(threadParams({ canUseTool })).toMatchObject({ approvalPolicy: "untrusted" });
    expect(threadParams({ canUseTool, codex: { approvalPolicy: "on-request" } })).toMatchObject({
      approvalPolicy: "on-request",
    });
  });
});

describe("thread/start config (an unordered map on the codex side)", () => {
  it("writes a codex.config key inside a server's table into the table, so it wins every time", () => {
    const config = threadParams({
      mcpServers: { echo: { command: "node", args: ["e.js"] } },
      codex: {
        config: { "mcp_servers.echo.default_tools_approval_mode": "prompt", "mcp_servers.echo.tools.x.y": 1 },
      },
    }).config;
    expect(config).toEqual({
      "mcp_servers.echo": {
        command: "node",
        args: ["e.js"],
        default_tools_approval_mode: "prompt",
        tools: { x: { y: 1 } },
      },
    });
  });

  it("reads quoted parts of dotted keys and leaves the caller's objects alone", () => {
    const own = { url: "http://127.0.0.1:1/mcp" };
    expect(
      foldIntoTables([
        ['mcp_servers."a.b"', own],
        ['mcp_servers."a.b"."x y".z', true],
        ["mcp_servers.c.enabled", false],
      ]),
    ).toEqual({
      'mcp_servers."a.b"': { url: "http://127.0.0.1:1/mcp", "x y": { z: true } },
      "mcp_servers.c.enabled": false,
    });
    expect(own).toEqual({ url: "http://127.0.0.1:1/mcp" });
  });
});

describe("TOML encoding of -c values", () => {
  it("quotes strings (so 'true' stays a string) and escapes what TOML requires", () => {
    expect(tomlValue("true")).toBe('"true"');
    expect(tomlString('a "q" \\ b\nc\td\u0001\u007f')).toBe('"a \\"q\\" \\\\ b\\nc\\td\\u0001\\u007f"');
    expect(tomlString("é ✓")).toBe('"é ✓"');
  });

  it("writes numbers, booleans, arrays and inline tables", () => {
    expect(tomlValue(1.5)).toBe("1.5");
    expect(tomlValue(false)).toBe("false");
    expect(tomlValue([])).toBe("[]");
    expect(tomlValue({})).toBe("{}");
    expect(tomlValue({ "a.b": { c: [true] } })).toBe('{ "a.b" = { c = [true] } }');
    expect(() => tomlValue(Number.NaN)).toThrow(TypeError);
  });

  it("orders overrides so codex.config comes last and wins", () => {
    const overrides = codexConfigOverrides({
      codex: { reasoningEffort: "low", config: { model_reasoning_effort: "high" } },
    });
    expect(configArgs(overrides)).toEqual([
      "-c",
      'model_reasoning_effort="low"',
      "-c",
      'model_reasoning_effort="high"',
    ]);
  });
});

describe("buildCodexEnv", () => {
  it("with inheritEnv: false passes only options.env", () => {
    expect(buildCodexEnv({ inheritEnv: false, env: { CODEX_HOME: "/h", GONE: undefined } })).toEqual({
      CODEX_HOME: "/h",
    });
  });

  it("layers options.env over process.env and removes undefined entries", () => {
    process.env.CAS_CODEX_TEST = "1";
    try {
      const env = buildCodexEnv({ env: { CAS_CODEX_TEST: undefined, OTHER: "x" } });
      expect(env.CAS_CODEX_TEST).toBeUndefined();
      expect(env.OTHER).toBe("x");
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.CAS_CODEX_TEST;
    }
  });
});
