/**
 * `code-agent` through pipes (no terminal), against the real claude CLI and the scripted model:
 * --json, prompts on stdin, the no-terminal permission policy, -i over stdin, exit codes.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/index.js";
import {
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  type FakeAnthropicServer,
  type ScriptedTurn,
  startFakeAnthropic,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { cliEnv, plain, ROOT, runPiped, startPiped, visible } from "./support/harness.js";

const models: FakeAnthropicServer[] = [];
afterEach(async () => {
  for (const model of models.splice(0)) await model.close();
});

async function scripted(turns: ScriptedTurn[]): Promise<FakeAnthropicServer> {
  const model = await startFakeAnthropic({ turns });
  models.push(model);
  return model;
}

function run(args: string[], model?: FakeAnthropicServer, input = "", extra: Record<string, string> = {}) {
  return runPiped(args, {
    env: cliEnv({ ...model?.env(), ...extra }),
    input,
    ...(model ? { cwd: model.env().HOME } : {}),
  });
}

const bash = (command: string): ScriptedTurn => ({
  toolUse: { name: "Bash", input: { command, description: `Run ${command}` } },
});

describe("code-agent --json", () => {
  it("prints the unified messages as JSON lines and nothing else on stdout", async () => {
    const model = await scripted([{ text: "Four." }]);
    const { code, stdout } = await run(["--json", "What is 2 + 2?"], model);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    const messages = lines.map((line) => JSON.parse(line) as Message);
    expect(messages.map((m) => m.type)).toEqual(expect.arrayContaining(["system", "assistant", "result"]));
    const result = messages.find((m) => m.type === "result");
    expect(result).toBeDefined();
    if (result?.type === "result") {
      expect(result.isError).toBe(false);
      expect(result.result).toBe("Four.");
      expect(result.raw).toMatchObject({ type: "result" });
    }
    // The result is the last line: the turn's command_lifecycle end comes before it.
    expect(messages.at(-1)?.type).toBe("result");
    const ends = messages.filter((m) => m.type === "system" && m.subtype === "command_lifecycle");
    expect(ends.map((m) => (m.type === "system" ? m.data.state : ""))).toEqual([
      "queued",
      "started",
      "completed",
    ]);
    // No partial-message events in JSON mode, no ANSI, no human lines.
    expect(messages.some((m) => m.type === "stream_event")).toBe(false);
    expect(stdout).not.toContain("\x1b[");
    expect(model.turnRequests[0]?.lastUserText).toBe("What is 2 + 2?");
  });

  it("reads the prompt from stdin when none is given", async () => {
    const model = await scripted([{ text: "From stdin." }]);
    const { code, stdout } = await run(["--json"], model, "summarize this\nplease\n");
    expect(code).toBe(0);
    expect(model.turnRequests[0]?.lastUserText).toBe("summarize this\nplease");
    expect(stdout).toContain('"result":"From stdin."');
  });

  it("a failed run (result.isError) exits 1", async () => {
    const model = await scripted([{ error: { status: 400, message: "bad request from the script" } }]);
    const { code, stdout } = await run(["--json", "fail"], model);
    expect(code).toBe(1);
    const result = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Message)
      .find((m) => m.type === "result");
    expect(result && result.type === "result" && result.isError).toBe(true);
  });
});

describe("code-agent when the CLI is not logged in", () => {
  it("says how to log in from a shell, not only the CLI's own /login", async () => {
    const model = await scripted([]);
    const { code, stdout } = await runPiped(["hi"], {
      env: cliEnv({ ...model.env(), ANTHROPIC_API_KEY: undefined }),
      input: "",
      cwd: model.env().HOME,
    });
    expect(code).toBe(1);
    expect(plain(stdout)).toContain(
      "Not logged in: set ANTHROPIC_API_KEY, or run `claude` once in a terminal",
    );
    expect(model.requests).toHaveLength(0);
  });
});

describe("code-agent without a terminal", () => {
  it("prints readable lines: text, a tool line and a second line with its outcome, a final line", async () => {
    const model = await scripted([bash("echo hi"), { text: "All done." }]);
    const { code, stdout, stderr } = await run(["--allow", "Bash", "say hi"], model);
    expect(code).toBe(0);
    expect(stdout).not.toContain("\x1b[");
    expect(stdout).toMatch(/^→ Bash echo hi\n {2}✓ Bash ok\n/m);
    expect(stdout).toContain("All done.");
    expect(stdout).toMatch(/✓ done · 2 turns · .* · resume: code-agent --resume [0-9a-f-]{36}\n$/);
    expect(stderr).toBe("");
  });

  it("denies a tool --allow does not cover, and says so on stderr", async () => {
    const model = await scripted([bash("touch nope.txt"), { text: "Could not." }]);
    const { code, stdout, stderr } = await run(["make a file"], model);
    expect(code).toBe(0);
    expect(stdout).toMatch(/→ Bash touch nope\.txt\n {2}⊘ Bash denied: no terminal to ask/);
    expect(stderr).toContain(
      "code-agent: denied Bash (touch nope.txt): not running in a terminal, so nobody can be asked; pass --allow Bash to allow it",
    );
    expect(existsSync(join(model.env().HOME ?? "", "nope.txt"))).toBe(false);
  });

  it("--allow with a rule allows only matching calls; --deny refuses", async () => {
    const model = await scripted([bash("touch ok.txt"), bash("rm -rf stuff"), { text: "Done." }]);
    const { code, stdout } = await run(["--allow", "Bash(touch:*)", "--deny", "Bash(rm:*)", "work"], model);
    expect(code).toBe(0);
    expect(stdout).toMatch(/→ Bash touch ok\.txt\n {2}✓ Bash ok/);
    expect(stdout).toMatch(/→ Bash rm -rf stuff\n {2}⊘ Bash denied/);
    expect(existsSync(join(model.env().HOME ?? "", "ok.txt"))).toBe(true);
  });

  it("--allow with a prefix rule never covers a compound command: Claude Code's own --allowedTools decides", async () => {
    const model = await scripted([
      bash("touch ok.txt; touch pwned.txt"),
      bash("touch ok.txt && touch pwned2.txt"),
      bash("touch ok.txt"),
      { text: "Done." },
    ]);
    const home = model.env().HOME ?? "";
    const { code, stdout } = await run(["--allow", "Bash(touch ok.txt:*)", "work"], model);
    expect(code).toBe(0);
    expect(stdout).toMatch(/→ Bash touch ok\.txt; touch pwned\.txt\n {2}⊘ Bash denied/);
    expect(stdout).toMatch(/→ Bash touch ok\.txt && touch pwned2\.txt\n {2}⊘ Bash denied/);
    expect(existsSync(join(home, "pwned.txt"))).toBe(false);
    expect(existsSync(join(home, "pwned2.txt"))).toBe(false);
    expect(existsSync(join(home, "ok.txt"))).toBe(true);
  });

  it("without a terminal, an untrusted checkout's .claude/settings.json hooks do not run unless --setting-sources asks", async () => {
    const model = await scripted([{ text: "One." }, { text: "Two." }]);
    const checkout = mkdtempSync(join(tmpdir(), "code-agent-untrusted-"));
    try {
      const marker = join(checkout, "hook-ran");
      mkdirSync(join(checkout, ".claude"));
      writeFileSync(
        join(checkout, ".claude", "settings.json"),
        JSON.stringify({
          hooks: {
            UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${JSON.stringify(marker)}` }] }],
          },
        }),
      );
      const first = await run(["--cwd", checkout, "hi"], model);
      expect(first.code).toBe(0);
      expect(existsSync(marker)).toBe(false);
      // Asked for explicitly, the project's settings load (and so the check above can fail).
      const second = await run(["--cwd", checkout, "--setting-sources", "user,project", "hi"], model);
      expect(second.code).toBe(0);
      expect(existsSync(marker)).toBe(true);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it("FORCE_COLOR turns colours on off a terminal, without spinner or rewrites", async () => {
    const model = await scripted([{ text: "Coloured." }]);
    const { code, stdout } = await run(["hi"], model, "", { FORCE_COLOR: "1" });
    expect(code).toBe(0);
    expect(stdout).toContain("\x1b[32m✓ done\x1b[39m");
    expect(visible(stdout)).not.toMatch(/⎋\[\d+A|⎋\[2K/);
  });

  it("-i reads one prompt per line from stdin and runs every turn in one session", async () => {
    const model = await scripted([{ text: "One." }, { text: "Two." }]);
    const { code, stdout } = await run(["-i"], model, "first\n\nsecond\n");
    expect(code).toBe(0);
    expect(model.turnRequests.map((r) => r.lastUserText)).toEqual(["first", "second"]);
    expect(stdout).toMatch(/› first\n[\s\S]*One\.\n[\s\S]*› second\n[\s\S]*Two\./);
    expect(stdout.match(/✓ done/g)?.length).toBe(2);
  });

  it("SIGINT interrupts a stalled turn and exits 130", async () => {
    const model = await scripted([{ stall: true, text: "stalling" }]);
    const proc = startPiped(["--json", "hang"], { env: cliEnv(model.env()), cwd: model.env().HOME });
    proc.end();
    await model.waitForRequest((r) => r.scripted);
    // The stalled stream has started: the CLI is waiting on the model.
    await proc.waitFor('"type":"system"');
    proc.child.kill("SIGINT");
    expect(await proc.exitCode()).toBe(130);
  });
});

describe("code-agent exit codes and usage", () => {
  it("--help prints usage and exits 0", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: code-agent");
    expect(stdout).toContain("130 interrupted");
  });

  it.each([
    [["--max-turns", "zero", "x"], /--max-turns must be a whole number/],
    [["--backend", "gpt", "x"], /--backend must be one of claude, codex, cursor/],
    [["--permission-mode", "yolo", "x"], /--permission-mode must be one of/],
    [["--bogus", "x"], /unknown option --bogus/],
    [["--max-turn", "3", "x"], /unknown option --max-turn; did you mean --max-turns\?/],
    [["--cwd", "/definitely/not/here", "x"], /is not a directory/],
    [[], /no prompt/],
    [["--backend", "cursor", "--allow", "Read", "x"], /the cursor backend does not support --allow/],
    [["install", "cursor"], /cursor cannot be installed/],
  ])("%j is a usage error (exit 2)", async (args, message) => {
    const { code, stderr, stdout } = await run(args);
    expect(stderr).toMatch(message);
    expect(stderr).toContain("code-agent --help");
    expect(stdout).toBe("");
    expect(code).toBe(2);
  });

  it("a missing agent CLI exits 3 with command-line install hints, not library option names", async () => {
    const { code, stderr } = await run(["hi"], undefined, "", { CLAUDE_CLI_PATH: "/nonexistent/claude" });
    expect(code).toBe(3);
    expect(stderr).toContain("the Claude Code CLI (`claude`) was not found");
    expect(stderr).toContain("npm install -g @anthropic-ai/claude-code");
    expect(stderr).toContain("code-agent install claude");
    expect(stderr).toContain("code-agent --cli-path /path/to/claude");
    expect(stderr).toContain("CLAUDE_CLI_PATH");
    expect(stderr).not.toMatch(/cliPath|autoInstallCli/);
  });

  it("--cli-path runs the CLI it names (a missing one is reported as such)", async () => {
    const { code, stderr } = await run(["--cli-path", "/nonexistent/claude", "hi"]);
    expect(code).toBe(3);
    expect(stderr).toContain("Looked in: /nonexistent/claude");
  });

  it("--version prints the version", async () => {
    const { code, stdout } = await run(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^code-agent \d+\.\d+\.\d+\n$/);
  });
});

describe("code-agent --demo without a terminal", () => {
  it("runs offline with the permission decision and the in-process MCP tool, and keeps --cwd", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "code-agent-cwd-"));
    try {
      const { code, stdout, stderr } = await run(["--demo", "--allow", "Bash", "--cwd", cwd]);
      expect(code).toBe(0);
      expect(plain(stdout)).toMatch(/→ Bash touch hello\.txt\n {2}✓ Bash ok/);
      expect(stdout).toMatch(
        /→ demo:get_weather \{"city":"Paris"\}\n {2}↳ get_weather\("Paris"\) handled in-process/,
      );
      expect(stdout).toContain("Created hello.txt.");
      expect(existsSync(join(cwd, "hello.txt"))).toBe(true);
      expect(stderr).toBe("");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("code-agent --demo with a stdin nobody closes", () => {
  it("does not wait for stdin: the demo's prompt is its own", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "code-agent-cwd-"));
    try {
      // stdin stays open, as under a parent process or a CI runner that never closes it.
      const proc = startPiped(["--demo", "--allow", "Bash", "--cwd", cwd]);
      const code = await proc.exitCode(30_000);
      proc.child.stdin.end();
      expect(code).toBe(0);
      expect(proc.stdout).toContain("Created hello.txt.");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("code-agent with the other backends", () => {
  it("--backend codex --demo: the real codex CLI and the scripted Responses API; --allow covers the command", async () => {
    const { code, stdout, stderr } = await run(["--backend", "codex", "--demo", "--allow", "Bash"]);
    expect(stderr).toBe("");
    expect(stdout).toContain("Demo: the real Codex CLI");
    expect(stdout).toMatch(/→ Bash .*touch hello\.txt.*\n {2}✓ Bash ok/);
    // Codex does not count round trips: no turn count, and no made-up one.
    expect(stdout).toMatch(/✓ done · [\d.]+ m?s · scripted, no cost · session /);
    expect(code).toBe(0);
  });

  it("--backend acp --demo: Claude Code through claude-code-acp; the command runs through the client's terminal", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "code-agent-cwd-"));
    try {
      const { code, stdout, stderr } = await run([
        "--backend",
        "acp",
        "--demo",
        "--allow",
        "Bash",
        "--cwd",
        cwd,
      ]);
      expect(stderr).toBe("");
      expect(stdout).toContain("Demo: Claude Code through the claude-code-acp ACP adapter");
      expect(plain(stdout)).toMatch(/→ Bash touch hello\.txt\n {2}✓ Bash ok/);
      // ACP reports no round-trip count: none is shown (never a made-up one).
      expect(stdout).toMatch(/✓ done · [\d.]+ m?s · .*session /);
      expect(existsSync(join(cwd, "hello.txt"))).toBe(true);
      expect(code).toBe(0);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("--backend codex --demo runs the approved command in a workspace-write sandbox, so it never depends on codex's unsandboxed retry", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "code-agent-codex-demo-"));
    try {
      const { code, stdout } = await run([
        "--backend",
        "codex",
        "--demo",
        "--allow",
        "Bash",
        "--json",
        "--cwd",
        cwd,
      ]);
      expect(code).toBe(0);
      const messages = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Message);
      const init = messages.find((m) => m.type === "system" && m.subtype === "init");
      expect((init?.raw as { sandbox?: { type?: string } } | undefined)?.sandbox?.type).toBe(
        "workspaceWrite",
      );
      expect(existsSync(join(cwd, "hello.txt"))).toBe(true);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("--agent codex-acp --demo: the native codex-acp against the scripted Responses API", async () => {
    const { code, stdout, stderr } = await run(["--agent", "codex-acp", "--demo", "--allow", "Bash"]);
    expect(stderr).toBe("");
    expect(stdout).toContain("Demo: Codex through the codex-acp ACP adapter");
    expect(stdout).toMatch(/ {2}✓ Bash ok/);
    expect(code).toBe(0);
  });

  it.skipIf(acpAgentUnavailableReason("gemini") !== undefined)(
    "--agent gemini: the real Gemini CLI over ACP against the fake Gemini API; --allow covers its command",
    async () => {
      await using model = await startFakeModelForAgent("gemini", {
        turns: [{ shell: "echo hi > cli.txt" }, { text: "Wrote cli.txt." }],
      });
      await using agent = createAcpAgentEnv("gemini", { baseUrl: model.url });
      const { code, stdout, stderr } = await runPiped(
        ["--agent", "gemini", "--cwd", agent.cwd, "--allow", "Bash", "RUN: write cli.txt"],
        { env: cliEnv(agent.env), input: "" },
      );
      expect(stderr).toBe("");
      expect(plain(stdout)).toMatch(/→ Bash echo hi > cli\.txt\n {2}✓ Bash ok/);
      expect(stdout).toContain("Wrote cli.txt.");
      expect(stdout).toMatch(/✓ done · [\d.]+ m?s · resume: code-agent --agent gemini --resume \S+/);
      expect(existsSync(join(agent.cwd, "cli.txt"))).toBe(true);
      expect(code).toBe(0);
    },
  );

  it("--agent with a command that does not exist: exit 3, naming it", async () => {
    const { code, stderr } = await run(["--agent", "/nonexistent/acp-agent", "hi"]);
    expect(stderr).toMatch(
      /^code-agent: the acp-agent CLI \(`acp-agent`\) was not found\.\n {2}Looked in: \/nonexistent\/acp-agent\n/,
    );
    expect(code).toBe(3);
  });

  it("--backend codex --demo without a terminal: the command is denied, and stderr says so", async () => {
    const { code, stdout, stderr } = await run(["--backend", "codex", "--demo"]);
    expect(stderr).toMatch(/code-agent: denied Bash \(.*touch hello\.txt.*\): not running in a terminal/);
    expect(stdout).toMatch(/ {2}⊘ Bash denied: no terminal to ask/);
    expect(code).toBe(0);
  });

  it("--backend cursor (a stand-in cursor-agent): a failing tool line, resume hint with the backend", async () => {
    const home = mkdtempSync(join(tmpdir(), "code-agent-cursor-"));
    try {
      const { code, stdout } = await run(["--backend", "cursor", "TOOL_SHELL_FAIL hello"], undefined, "", {
        CURSOR_AGENT_CLI_PATH: join(ROOT, "test", "fixtures", "cursor", "fake-cursor-agent.mjs"),
        CURSOR_API_KEY: "test-key",
        HOME: home,
      });
      expect(stdout).toMatch(/→ Bash nope\n {2}✗ Bash error: nope: command not found/);
      expect(stdout).toMatch(/✓ done · .* · resume: code-agent --backend cursor --resume \S+\n$/);
      expect(code).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
