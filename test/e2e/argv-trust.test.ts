/**
 * Issue 24 against the real CLIs, offline: a flag-looking resume id is refused before anything is
 * spawned (finding 3: on codex 0.169.0 `resume --dangerously-bypass-approvals-and-sandbox` turned
 * the sandbox and approvals off; Claude Code reads `--dangerously-skip-permissions` the same way),
 * the positional id after `--` is accepted by the real codex, and a session's command line
 * (`/proc/<pid>/cmdline`, readable by every local user) holds no MCP server secret and no
 * settings (finding 10).
 */
import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, lstatSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Codex } from "../../src/compat/codex-sdk/index.js";
import { InvalidOptionsError, type Message, ProcessError, query } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { liveChildren } from "../lifecycle/support/processes.js";
import { codexBed, ECHO_MCP, results } from "./codex-support.js";
import { outcome, testBed } from "./support.js";

const CODEX_BYPASS = "--dangerously-bypass-approvals-and-sandbox";
const CLAUDE_BYPASS = "--dangerously-skip-permissions";

afterEach(() => {
  expect(liveGroupCount()).toBe(0);
});

/** The argv of this process's live children whose command line contains `marker`. */
function childArgv(marker: string): string[][] {
  return liveChildren()
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
      } catch {
        return [];
      }
    })
    .filter((argv) => argv.includes(marker));
}

describe("a flag-looking resume id never reaches the CLI", () => {
  it("codex: resume '--dangerously-bypass-approvals-and-sandbox' is an InvalidOptionsError; nothing is spawned", async () => {
    await using bed = await codexBed([{ text: "should never be asked" }]);
    const { seen, error } = await outcome(
      query({
        prompt: "hi",
        options: bed.options({ resume: CODEX_BYPASS, codex: { sandboxMode: "read-only" } }),
      }),
    );
    expect(seen).toEqual([]);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).issues).toContainEqual(
      expect.stringMatching(/^resume: .*must not start with '-'|^resume: must be a Codex thread id/),
    );
    expect(bed.api.requests).toHaveLength(0);
  });

  it("codex compat: resumeThread('--dangerously-bypass-approvals-and-sandbox') throws before any turn", async () => {
    await using bed = await codexBed([{ text: "should never be asked" }]);
    const codex = new Codex({ env: bed.home.env });
    expect(() =>
      codex.resumeThread(CODEX_BYPASS, { workingDirectory: bed.cwd, skipGitRepoCheck: true }),
    ).toThrow(InvalidOptionsError);
    expect(bed.api.requests).toHaveLength(0);
  });

  it("codex: a well-formed id goes after '--', and the real CLI takes it as the session id", async () => {
    await using bed = await codexBed([{ text: "should never be asked" }]);
    const missing = "01a2006c-0000-7000-8000-000000000000";
    const { error } = await outcome(query({ prompt: "hi", options: bed.options({ resume: missing }) }));
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).stderrTail).toContain(`no rollout found for thread id ${missing}`);
    expect(bed.api.requests).toHaveLength(0);
  });

  it("claude: resume '--dangerously-skip-permissions' is an InvalidOptionsError; nothing is spawned", async () => {
    await using bed = await testBed([{ text: "should never be asked" }]);
    for (const options of [
      { resume: CLAUDE_BYPASS },
      { resume: "not-a-session-id" },
      { sessionId: CLAUDE_BYPASS },
      { resume: "8755d035-1a79-4e28-8225-2d0348cf8fea", resumeSessionAt: CLAUDE_BYPASS },
      { model: CLAUDE_BYPASS },
      { addDirs: [CLAUDE_BYPASS] },
      { allowedTools: [CLAUDE_BYPASS] },
      // A NUL byte, which no argv or environment can carry: refused as options, not failed at spawn.
      { model: "sonnet\0--dangerously-skip-permissions" },
      { fallbackModel: "haiku\0" },
      { allowedTools: ["Bash\0"] },
      { disallowedTools: ["Bash\0"] },
      { env: { TZ: "UTC\0" } },
    ]) {
      const { seen, error } = await outcome(query({ prompt: "hi", options: bed.options(options) }));
      expect(seen).toEqual([]);
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidOptionsError);
    }
    expect(bed.model.requests).toHaveLength(0);
  });
});

describe("claude: MCP server env/headers and settings are not on the command line", () => {
  it("they reach the CLI through private files, which go when the session ends", async () => {
    await using bed = await testBed([{ text: "done" }]);
    const secrets = {
      env: "cas-mcp-env-secret-5f1e",
      header: "cas-mcp-header-secret-9a2c",
      settings: "cas-settings-secret-77d0",
    };
    const q = query({
      prompt: "hi",
      options: bed.options({
        mcpServers: {
          echo: { command: process.execPath, args: [ECHO_MCP], env: { ECHO_TOKEN: secrets.env } },
          web: {
            type: "http",
            url: "http://127.0.0.1:9/mcp",
            headers: { Authorization: `Bearer ${secrets.header}` },
          },
        },
        settings: { model: "claude-model-from-settings", env: { CAS_SETTINGS_TOKEN: secrets.settings } },
      }),
    });
    let argv: string[] | undefined;
    let init: Message | undefined;
    const seen: Message[] = [];
    for await (const m of q) {
      seen.push(m);
      if (m.type === "system" && m.subtype === "init") {
        init = m;
        [argv] = childArgv("--mcp-config");
      }
    }
    expect(argv).toBeDefined();
    const cmdline = argv!.join(" ");
    for (const secret of Object.values(secrets)) expect(cmdline).not.toContain(secret);
    expect(cmdline).not.toContain("claude-model-from-settings");
    expect(cmdline).not.toMatch(/[{}]/);

    const mcpConfig = argv![argv!.indexOf("--mcp-config") + 1]!;
    const settings = argv![argv!.indexOf("--settings") + 1]!;
    expect(mcpConfig).toMatch(/^\/.*mcp-config\.json$/);
    expect(settings).toMatch(/^\/.*settings\.json$/);
    expect(dirname(settings)).toBe(dirname(mcpConfig));
    // Gone with the session (the files were checked for their modes in the unit tests).
    expect(() => lstatSync(dirname(settings))).toThrow(/ENOENT/);

    // The real CLI read both files: the MCP servers are its own, the settings chose the model.
    expect(JSON.stringify(init)).toContain('"echo"');
    expect(JSON.stringify(init)).toContain('"web"');
    const asked = bed.model.requests.filter((r) => (r.body as { max_tokens?: number }).max_tokens !== 1);
    expect(asked.at(-1)?.body).toMatchObject({ model: "claude-model-from-settings" });
    expect(results(seen)[0]).toMatchObject({ subtype: "success", result: "done" });
  });
});

describe.skipIf(process.getuid?.() !== 0)("claude run as another user (root host)", () => {
  it("the CLI, as that user, reads its private MCP config and settings; they go with the session", async () => {
    await using bed = await testBed([{ text: "done as the user" }]);
    const name = `casargv${process.pid}`;
    execFileSync("useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", name], { stdio: "ignore" });
    try {
      const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
      chownSync(bed.cwd, uid, gid);
      const own = { HOME: bed.cwd, TMPDIR: bed.cwd, CLAUDE_CODE_TMPDIR: bed.cwd };
      let argv: string[] | undefined;
      let init: Message | undefined;
      const seen: Message[] = [];
      for await (const m of query({
        prompt: "hi",
        options: bed.options({
          user: { uid, gid },
          env: { ...bed.options().env, ...own },
          mcpServers: {
            echo: { command: process.execPath, args: [ECHO_MCP], env: { ECHO_TOKEN: "as-user-secret" } },
          },
          settings: { model: "claude-model-for-the-user" },
        }),
      })) {
        seen.push(m);
        if (m.type === "system" && m.subtype === "init") {
          init = m;
          [argv] = childArgv("--mcp-config");
        }
      }
      const settings = argv![argv!.indexOf("--settings") + 1]!;
      expect(argv!.join(" ")).not.toContain("as-user-secret");
      expect(JSON.stringify(init)).toContain('"echo"');
      const asked = bed.model.requests.filter((r) => (r.body as { max_tokens?: number }).max_tokens !== 1);
      expect(asked.at(-1)?.body).toMatchObject({ model: "claude-model-for-the-user" });
      expect(results(seen)[0]).toMatchObject({ subtype: "success", result: "done as the user" });
      expect(existsSync(dirname(settings))).toBe(false);
    } finally {
      execFileSync("userdel", [name], { stdio: "ignore" });
    }
  });
});

describe("claude: the private files go with a host that exits mid-session", () => {
  it("a host that exits while the session runs removes them (after its CLI is killed)", async () => {
    await using bed = await testBed([{ text: "never finished" }]);
    const script = join(bed.cwd, "host.mts");
    const index = join(import.meta.dirname, "..", "..", "src", "index.ts");
    writeFileSync(
      script,
      [
        'import { readdirSync, readFileSync } from "node:fs";',
        `import { query } from ${JSON.stringify(index)};`,
        `const options = ${JSON.stringify(bed.options({ settings: { env: { CAS_TOKEN: "host-exit-secret" } } }))};`,
        "const q = query({ prompt: 'hi', options });",
        "for await (const m of q) {",
        "  if (m.type !== 'system') continue;",
        "  for (const pid of readdirSync('/proc').filter((e) => /^\\d+$/.test(e))) {",
        "    let argv = [];",
        "    try { argv = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0'); } catch { continue; }",
        "    const at = argv.indexOf('--settings');",
        "    if (at >= 0 && argv.includes('--input-format')) console.log(argv[at + 1]);",
        "  }",
        "  process.exit(0);",
        "}",
      ].join("\n"),
    );
    const tsx = join(import.meta.dirname, "..", "..", "node_modules", "tsx", "dist", "loader.mjs");
    const child = spawn(process.execPath, ["--unhandled-rejections=strict", "--import", tsx, script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    const settings = out.trim();
    expect(settings).toMatch(/^\/.*settings\.json$/);
    expect(existsSync(dirname(settings))).toBe(false);
  });
});

describe("codex: MCP server env, headers and args are not on the command line", () => {
  const secrets = {
    env: "cas-codex-mcp-env-secret-31b7",
    header: "cas-codex-mcp-header-secret-c04e",
    arg: "cas-codex-mcp-arg-secret-aa19",
  };
  const mcpServers = {
    echo: {
      command: process.execPath,
      args: [ECHO_MCP, `--token=${secrets.arg}`],
      env: { ECHO_TOKEN: secrets.env },
    },
    web: {
      type: "http" as const,
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: `Bearer ${secrets.header}` },
    },
  };

  it("a one-shot query: the servers travel in thread/start, and the tool still runs", async () => {
    await using bed = await codexBed([
      { mcpCall: { server: "echo", tool: "echo", arguments: { text: "ping" } } },
      { text: "echoed" },
    ]);
    let argv: string[] | undefined;
    const seen: Message[] = [];
    for await (const m of query({ prompt: "use echo", options: bed.options({ mcpServers }) })) {
      seen.push(m);
      // Before the fix this was a `codex exec` with `-c mcp_servers.…` arguments.
      argv ??= childArgv("app-server")[0] ?? childArgv("exec")[0];
    }
    expect(argv).toBeDefined();
    const cmdline = argv!.join(" ");
    for (const secret of Object.values(secrets)) expect(cmdline).not.toContain(secret);
    expect(cmdline).not.toContain("mcp_servers");
    expect(JSON.stringify(seen)).toContain("echo: ping");
    expect(results(seen)[0]).toMatchObject({ subtype: "success", result: "echoed" });
  });
});
