/**
 * Issue 24, finding 3 ("an id becomes a flag"): every user value that reaches a CLI's argv is
 * checked before anything is spawned (ids against their syntax, nothing starting with `-`), the
 * builders put positional values after `--`, and a value that still starts with `-` is joined to
 * its flag. Plus the private files that keep MCP configs and settings off argv (finding 10).
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
// The validators answer options beyond the plain ones from the options schema, loaded on every
// public path (backendFor, loadBackend); here, by importing it.
import "../../../src/options-schema.js";
import { validateAcpOptions } from "../../../src/backends/acp/validate.js";
import { buildClaudeArgs } from "../../../src/backends/claude/command.js";
import { validateClaudeOptions } from "../../../src/backends/claude/validate.js";
import { execCanRun } from "../../../src/backends/codex/backend.js";
import { buildAppServerArgs, buildExecArgs, threadParams } from "../../../src/backends/codex/command.js";
import { validateCodexOptions } from "../../../src/backends/codex/validate.js";
import { buildCursorArgs } from "../../../src/backends/cursor/command.js";
import { validateCursorOptions } from "../../../src/backends/cursor/validate.js";
import { execTurnArgs } from "../../../src/compat/codex-sdk/exec-spec.js";
import { Codex } from "../../../src/compat/codex-sdk/index.js";
import { CliConnectionError, InvalidOptionsError, UnsupportedFeatureError } from "../../../src/errors.js";
import { type Message, query } from "../../../src/index.js";
import type { AgentOptions } from "../../../src/options.js";
import { PrivateFiles } from "../../../src/process/private-files.js";
import { resultLine, ScriptedTransport } from "../support/scripted-transport.js";

async function drain(messages: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

const CLAUDE_SESSION = "8755d035-1a79-4e28-8225-2d0348cf8fea";
const CODEX_THREAD = "01a2006c-d3d2-7562-819c-e668dc7cb903";
const CODEX_BYPASS = "--dangerously-bypass-approvals-and-sandbox";
const CLAUDE_BYPASS = "--dangerously-skip-permissions";

/** The issues `validate` throws for `options` (an `InvalidOptionsError` is required). */
function issuesOf(validate: (options: unknown) => void, options: AgentOptions): string[] {
  try {
    validate(options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return [...(error as InvalidOptionsError).issues];
  }
  return [];
}

describe("ids are checked against the syntax of the backend that receives them", () => {
  it.each([
    ["claude", "resume", CLAUDE_BYPASS, validateClaudeOptions],
    ["claude", "resume", "sess-1", validateClaudeOptions],
    ["claude", "resume", `${CLAUDE_SESSION} --x`, validateClaudeOptions],
    ["claude", "resumeSessionAt", "-u", validateClaudeOptions],
    ["claude", "resumeSessionAt", "message-1", validateClaudeOptions],
    ["claude", "resumeDropsTurn", "--permission-mode=bypassPermissions", validateClaudeOptions],
    ["codex", "resume", CODEX_BYPASS, validateCodexOptions],
    ["codex", "resume", "my thread name", validateCodexOptions],
    ["cursor", "resume", "--force", validateCursorOptions],
    ["cursor", "resume", "chat 1", validateCursorOptions],
    ["acp", "resume", "--yolo", validateAcpOptions],
    ["acp", "resume", "s\n1", validateAcpOptions],
  ] as const)("%s refuses %s %j", (backend, key, value, validate) => {
    const options: AgentOptions = { backend, [key]: value };
    if (key !== "resume") options.resume = CLAUDE_SESSION;
    const issues = issuesOf(validate, options);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((issue) => issue.startsWith(`${key}: `))).toBe(true);
  });

  it.each([
    ["claude", validateClaudeOptions, { resume: CLAUDE_SESSION, resumeSessionAt: CLAUDE_SESSION }],
    ["claude (default backend)", validateClaudeOptions, { resume: CLAUDE_SESSION.toUpperCase() }],
    ["codex", validateCodexOptions, { backend: "codex", resume: CODEX_THREAD }],
    ["cursor", validateCursorOptions, { backend: "cursor", resume: "chat-1.a_b:c" }],
    ["cursor (a UUID)", validateCursorOptions, { backend: "cursor", resume: CLAUDE_SESSION }],
    ["acp", validateAcpOptions, { backend: "acp", acp: { agent: "gemini" }, resume: "sess_01/abc=" }],
  ] as const)("%s accepts a well-formed id", (_name, validate, options) => {
    expect(issuesOf(validate, options as AgentOptions)).toEqual([]);
  });

  it("says what the id should look like", () => {
    expect(issuesOf(validateCodexOptions, { backend: "codex", resume: CODEX_BYPASS })).toContainEqual(
      expect.stringMatching(/^resume: must be a Codex thread id: a UUID/),
    );
    expect(issuesOf(validateClaudeOptions, { resume: "x" })).toContainEqual(
      expect.stringMatching(/^resume: must be a Claude Code session id: a UUID/),
    );
  });
});

describe("no other value that becomes an argument of its own may start with '-'", () => {
  it.each<[string, AgentOptions]>([
    ["model", { model: "--dangerously-skip-permissions" }],
    ["fallbackModel", { fallbackModel: "-x" }],
    ["agent", { agent: "--agents" }],
    ["betas[0]", { betas: ["--debug"] }],
    ["permissionPromptToolName", { permissionPromptToolName: "--x" }],
    ["addDirs[0]", { addDirs: ["--dangerously-skip-permissions"] }],
    ["debugFile", { debugFile: "-f" }],
    ["projectConfigRoot", { projectConfigRoot: "-r" }],
    ["cwd", { cwd: "--x" }],
    ["allowedTools[0]", { allowedTools: ["--dangerously-skip-permissions"] }],
    ["disallowedTools[0]", { disallowedTools: ["-x"] }],
    ["tools", { tools: ["-x"] }],
    ["plugins[0].path", { plugins: [{ type: "local", path: "--plugin-url" }] }],
    ["mcpServers", { mcpServers: "--strict-mcp-config" }],
    ["settings", { settings: "--x" }],
  ])("%s", (path, options) => {
    const issues = issuesOf(validateClaudeOptions, options);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.startsWith(path)).toBe(true);
  });

  it("Codex: cwd, model, addDirs and config keys", () => {
    const issues = issuesOf(validateCodexOptions, {
      backend: "codex",
      cwd: "-C",
      model: "--oss",
      addDirs: ["/ok", "--x"],
      codex: { config: { "-x": 1 } },
    });
    expect(issues.map((issue) => issue.split(":")[0])).toEqual([
      "codex.config.-x",
      "cwd",
      "model",
      "addDirs[1]",
    ]);
  });

  it("Cursor: model", () => {
    expect(issuesOf(validateCursorOptions, { backend: "cursor", model: "--force" })).toHaveLength(1);
  });

  it("paths written as ./-name, ids and models in their own syntax, pass", () => {
    expect(
      issuesOf(validateClaudeOptions, {
        addDirs: ["./-odd"],
        model: "claude-x",
        allowedTools: ["Bash(-rf)"],
      }),
    ).toEqual([]);
  });
});

describe("builders: positional values after --, and nothing starting with - on its own", () => {
  it("codex exec: resume -- <id> -, the prompt argument after -- without resume too", () => {
    const args = buildExecArgs({ resume: CODEX_THREAD });
    expect(args.slice(-4)).toEqual(["resume", "--", CODEX_THREAD, "-"]);
    expect(buildExecArgs({}).slice(-2)).toEqual(["--", "-"]);
  });

  it("codex exec: a flag-looking id that skipped validation is still only the session id", () => {
    const args = buildExecArgs({ resume: CODEX_BYPASS });
    expect(args.indexOf(CODEX_BYPASS)).toBeGreaterThan(args.indexOf("--"));
    expect(args.filter((a) => a === "--")).toHaveLength(1);
  });

  it("codex exec: flag values that start with '-' are joined to their flag", () => {
    const args = buildExecArgs({ model: "-m", cwd: "-d", addDirs: ["-a"], extraArgs: { profile: "-p" } });
    expect(args).toEqual(expect.arrayContaining(["--model=-m", "--add-dir=-a", "--profile=-p"]));
    // cwd is made absolute, so it cannot start with '-' at all.
    expect(args[args.indexOf("--cd") + 1]).toBe(resolve("-d"));
    expect(args.slice(0, args.indexOf("--")).filter((a) => /^-[^-]|^--[^=]*$/.test(a))).not.toContain("-m");
  });

  it("compat exec: resume [--image …] -- <id>; a non-UUID id is refused", () => {
    const turn = { thread: {}, threadId: CODEX_THREAD, images: ["/i.png"] };
    expect(execTurnArgs(turn).slice(-5)).toEqual(["resume", "--image", "/i.png", "--", CODEX_THREAD]);
    expect(execTurnArgs({ ...turn, threadId: null }).slice(-2)).toEqual(["--image", "/i.png"]);
    expect(() => execTurnArgs({ ...turn, threadId: CODEX_BYPASS })).toThrow(InvalidOptionsError);
  });

  it("compat exec: a config override that starts with '-' is joined to --config", () => {
    const args = execTurnArgs({
      thread: {},
      threadId: null,
      images: [],
      configOverrides: ["-s=danger-full-access"],
    });
    expect(args).toContain("--config=-s=danger-full-access");
    expect(args).not.toContain("-s=danger-full-access");
  });

  it("compat: resumeThread() and startThread() refuse flag-looking values before any turn", () => {
    const codex = new Codex();
    expect(() => codex.resumeThread(CODEX_BYPASS)).toThrow(InvalidOptionsError);
    expect(() => codex.resumeThread("not-a-uuid")).toThrow(/must be a Codex thread id/);
    expect(() => codex.startThread({ workingDirectory: "--x" })).toThrow(/workingDirectory: must not start/);
    expect(() => codex.startThread({ additionalDirectories: ["-a"] })).toThrow(InvalidOptionsError);
    expect(() => codex.startThread({ model: "--oss" })).toThrow(InvalidOptionsError);
    expect(codex.resumeThread(CODEX_THREAD).id).toBe(CODEX_THREAD);
  });

  it("cursor: a chat id from the CLI's own output that looks like a flag stays the value of --resume", () => {
    const args = buildCursorArgs({}, { prompt: "-p", resume: "--force" });
    expect(args).toContain("--resume=--force");
    expect(args).not.toContain("--force");
    expect(args.slice(-2)).toEqual(["--", "-p"]);
  });

  it("claude: a flag-looking resume that skipped validation is the value of --resume, not a flag", () => {
    const args = buildClaudeArgs(
      { resume: CLAUDE_BYPASS, model: "-m", extraArgs: { x: "-1" } },
      { sdkMcpServerNames: [], files: null },
    );
    expect(args).toEqual(expect.arrayContaining([`--resume=${CLAUDE_BYPASS}`, "--model=-m", "--x=-1"]));
    expect(args).not.toContain(CLAUDE_BYPASS);
  });
});

describe("codex: MCP server tables stay off the command line", () => {
  const mcpServers = {
    echo: { command: "node", args: ["--token=a1"], env: { TOKEN: "e1" } },
    web: {
      type: "http" as const,
      url: "http://127.0.0.1:9/mcp?key=q1",
      headers: { Authorization: "Bearer h1" },
    },
  };

  it("the app-server gets them in thread/start (and thread/resume), not as -c arguments", () => {
    const args = buildAppServerArgs({ mcpServers, codex: { reasoningEffort: "low" } });
    expect(args).toEqual(["app-server", "-c", 'model_reasoning_effort="low"']);
    expect(threadParams({ mcpServers, cwd: "/w" }).config).toEqual({
      "mcp_servers.echo": {
        command: "node",
        args: ["--token=a1"],
        env: { TOKEN: "e1" },
        default_tools_approval_mode: "approve",
      },
      "mcp_servers.web": {
        url: "http://127.0.0.1:9/mcp?key=q1",
        http_headers: { Authorization: "Bearer h1" },
        default_tools_approval_mode: "approve",
      },
    });
    expect(threadParams({ cwd: "/w" }).config).toBeUndefined();
  });

  it("a one-shot query with MCP servers runs on the app-server, not on exec", () => {
    const parts = { text: "hi", images: [] };
    expect(execCanRun({}, parts)).toBe(true);
    expect(execCanRun({ mcpServers }, parts)).toBe(false);
    expect(execCanRun({ mcpServers: {} }, parts)).toBe(true);
  });
});

describe("claude: managedSettings travel in initialize, and must be confirmed", () => {
  /** A CLI stand-in that answers initialize with `answer` and every prompt with a result. */
  const cli = (answer: Record<string, unknown>) =>
    new ScriptedTransport((message, t) => {
      if (
        message.type === "control_request" &&
        (message.request as { subtype: string }).subtype === "initialize"
      ) {
        t.emit({
          type: "control_response",
          response: { subtype: "success", request_id: message.request_id, response: { pid: 1, ...answer } },
        });
      } else if (message.type === "user") t.emit(resultLine("ok"));
    });

  it("a CLI that does not confirm managed_settings_applied ends the query with UnsupportedFeatureError", async () => {
    const transport = cli({});
    const managedSettings = { permissions: { deny: ["Bash"] } };
    await expect(drain(query({ prompt: "hi", options: { transport, managedSettings } }))).rejects.toThrow(
      UnsupportedFeatureError,
    );
    const init = transport.written.find((m) => m.type === "control_request");
    expect(init?.request).toMatchObject({ subtype: "initialize", managedSettings });
    expect(transport.written.some((m) => m.type === "user")).toBe(false);
  });

  it("a confirmed one runs; without managedSettings nothing is asked", async () => {
    const managedSettings = { permissions: { deny: ["Bash"] } };
    const ok = await drain(
      query({
        prompt: "hi",
        options: { transport: cli({ managed_settings_applied: true }), managedSettings },
      }),
    );
    expect(ok.at(-1)).toMatchObject({ type: "result" });
    const plain = await drain(query({ prompt: "hi", options: { transport: cli({}) } }));
    expect(plain.at(-1)).toMatchObject({ type: "result" });
  });
});

describe("PrivateFiles: where MCP configs and settings go instead of argv", () => {
  it("a 0700 directory of 0600 files, exclusive and no-follow, removed by remove()", () => {
    const files = new PrivateFiles("cas-private-test-");
    expect(files.directory).toBeUndefined();
    const path = files.write("settings.json", '{"env":{"K":"v"}}');
    const dir = files.directory!;
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe('{"env":{"K":"v"}}');
    expect(() => files.write("settings.json", "{}")).toThrow(CliConnectionError);
    expect(() => files.write("settings.json", "{}")).toThrow(/private file settings\.json .*EEXIST/);
    const outside = join(mkdtempSync(join(tmpdir(), "cas-private-victim-")), "victim");
    writeFileSync(outside, "untouched");
    symlinkSync(outside, join(dir, "mcp-config.json"));
    expect(() => files.write("mcp-config.json", "{}")).toThrow(/EEXIST|ELOOP/);
    expect(readFileSync(outside, "utf8")).toBe("untouched");
    expect(() => files.write("../x", "{}")).toThrow(TypeError);
    files.remove();
    files.remove();
    expect(existsSync(dir)).toBe(false);
    rmSync(join(outside, ".."), { recursive: true, force: true });
  });

  it("removeAsync() removes them off the event loop, also with something else in the directory", async () => {
    const files = new PrivateFiles("cas-private-test-");
    await files.removeAsync();
    files.write("settings.json", "{}");
    const dir = files.directory!;
    writeFileSync(join(dir, "left-by-the-cli"), "x");
    await files.removeAsync();
    expect(existsSync(dir)).toBe(false);
    expect(files.directory).toBeUndefined();
  });

  it("files for another user are theirs; the directory stays ours, and they can only traverse it", () => {
    const files = new PrivateFiles("cas-private-test-", { uid: 65534, gid: 65534 });
    try {
      const path = files.write("a.json", "{}");
      expect(lstatSync(path)).toMatchObject({ uid: 65534, gid: 65534 });
      expect(lstatSync(path).mode & 0o777).toBe(0o600);
      const dir = lstatSync(files.directory!);
      expect(dir.uid).toBe(process.getuid?.());
      expect(dir.mode & 0o777).toBe(0o711);
      // As that user: the file by its name, yes; the directory's listing or a new entry, no.
      const probe = spawnSync(
        process.execPath,
        [
          "-e",
          `const fs = require("node:fs");
           const out = [fs.readFileSync(${JSON.stringify(path)}, "utf8")];
           for (const f of [() => fs.readdirSync(${JSON.stringify(files.directory)}), () => fs.writeFileSync(${JSON.stringify(`${files.directory}/x`)}, "")]) {
             try { f(); out.push("allowed"); } catch (e) { out.push(e.code); }
           }
           console.log(out.join(" "));`,
        ],
        { uid: 65534, gid: 65534, encoding: "utf8" },
      );
      expect(probe.stdout.trim()).toBe("{} EACCES EACCES");
    } finally {
      files.remove();
    }
  });

  it("a host that exits without removing them still removes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cas-private-host-"));
    try {
      const script = join(dir, "host.mts");
      const module = join(import.meta.dirname, "..", "..", "..", "src", "process", "private-files.ts");
      writeFileSync(
        script,
        [
          `import { PrivateFiles } from ${JSON.stringify(module)};`,
          "const files = new PrivateFiles('cas-private-exit-');",
          "files.write('settings.json', '{}');",
          "console.log(files.directory);",
        ].join("\n"),
      );
      const tsx = join(import.meta.dirname, "..", "..", "..", "node_modules", "tsx", "dist", "loader.mjs");
      const child = spawn(process.execPath, ["--unhandled-rejections=strict", "--import", tsx, script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(0);
      const made = out.trim();
      expect(made).toContain("cas-private-exit-");
      expect(existsSync(made)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
