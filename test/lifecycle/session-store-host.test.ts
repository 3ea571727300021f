/**
 * Session stores and the host process, each host its own Node process under
 * `--unhandled-rejections=strict`:
 * - the temporary directory of a resume from a store (it holds a copy of the access token) is
 *   removed when the host exits with the session open, or dies of SIGINT/SIGTERM/SIGHUP; one left
 *   by a host SIGKILLed is removed by the next resume;
 * - a store whose `append()` rejects with a null-prototype object, a BigInt or a circular object
 *   never crashes the host: the failure is a `mirror_error`, and the host exits 0 on its own.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLAUDE_CLI_VERSION, testBed } from "../e2e/support.js";
import { eventually, isAlive } from "./support/processes.js";

/** Far above what these hosts need (a few seconds), far below a hang. */
const EXIT_BOUND_MS = 60_000;
const ROOT = join(import.meta.dirname, "..", "..");
const SESSION = "0b0c6f4e-5a44-4e51-9a43-3f1d7f0c5a11";

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

function scratch(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `cas-store-host-${label}-`));
  scratchDirs.push(dir);
  return dir;
}

interface HostRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/**
 * Runs `lines` as a TypeScript host (`SRC` standing for this package's `src` folder) in a node
 * process of its own with `TMPDIR` set to `tmp`; fails if it has not exited within the bound.
 */
async function runHost(lines: string[], tmp: string): Promise<HostRun> {
  const script = join(scratch("script"), "host.mts");
  writeFileSync(script, lines.join("\n").replaceAll("SRC", JSON.stringify(join(ROOT, "src")).slice(0, -1)));
  const tsx = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");
  const child = spawn(process.execPath, ["--unhandled-rejections=strict", "--import", tsx, script], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: tmp },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const bound = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the host did not exit within ${EXIT_BOUND_MS} ms\n${out}\n${err}`));
    }, EXIT_BOUND_MS);
    child.on("close", (code, signal) => {
      clearTimeout(bound);
      resolve({ code, signal, out, err });
    });
  });
}

function resumeDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith("claude-resume-"));
}

/**
 * A host that prepares a resume from a store (no CLI), prints the directory, then `ends`; with
 * `user`, the directory is prepared for that user (handed over).
 */
function preparingHost(ends: string, user?: { uid: number; gid: number }): string[] {
  return [
    'import { mkdtempSync, writeFileSync } from "node:fs";',
    'import { join } from "node:path";',
    'import { tmpdir } from "node:os";',
    'import { prepareStoreResume } from SRC/backends/claude/store-resume.ts";',
    'import { InMemorySessionStore } from SRC/backends/claude/index.ts";',
    'import { projectKeyOf } from SRC/backends/claude/sessions/store-keys.ts";',
    'const cwd = mkdtempSync(join(tmpdir(), "cwd-"));',
    'const config = mkdtempSync(join(tmpdir(), "config-"));',
    'writeFileSync(join(config, ".credentials.json"), JSON.stringify({ claudeAiOauth: { accessToken: "secret" } }));',
    "const store = new InMemorySessionStore();",
    `await store.append({ projectKey: projectKeyOf(cwd), sessionId: ${JSON.stringify(SESSION)} }, [{ type: "user" }]);`,
    `const user = ${JSON.stringify(user)};`,
    `const prepared = await prepareStoreResume({ cwd, sessionStore: store, resume: ${JSON.stringify(SESSION)}, ...(user ? { user } : {}) }, { CLAUDE_CONFIG_DIR: config });`,
    "console.log(prepared?.configDir);",
    ends,
  ];
}

describe("the resume-from-store directory goes with the host", () => {
  it("a host that exits without closing the session removes it", async () => {
    const tmp = scratch("exit");
    const run = await runHost(preparingHost("// the host just ends"), tmp);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out.trim()).toContain("claude-resume-");
    expect(resumeDirs(tmp)).toEqual([]);
  });

  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)("a host that dies of %s removes it", async (signal) => {
    const tmp = scratch(signal);
    const run = await runHost(preparingHost(`process.kill(process.pid, ${JSON.stringify(signal)});`), tmp);
    // Killed by the signal (re-raised after the clean-up), or, where the test runner starts its
    // children with the signal ignored (SIGHUP under nohup), ended by itself.
    expect(run.signal === signal || run.code === 0, `exit ${run.code ?? run.signal}: ${run.err}`).toBe(true);
    expect(run.out.trim()).toContain("claude-resume-");
    expect(resumeDirs(tmp)).toEqual([]);
  });

  it("a host SIGKILLed (no hook runs) leaves it behind; the next resume on the machine removes it", async () => {
    const tmp = scratch("SIGKILL");
    const killed = await runHost(preparingHost('process.kill(process.pid, "SIGKILL");'), tmp);
    expect(killed.signal).toBe("SIGKILL");
    const left = killed.out.trim();
    expect(resumeDirs(tmp)).toEqual([left.slice(tmp.length + 1)]);
    const next = await runHost(preparingHost("// the host just ends"), tmp);
    expect(next.code, next.err).toBe(0);
    expect(next.out.trim()).not.toBe(left);
    expect(resumeDirs(tmp)).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "root host, directory handed over to another user: removed as that user when the host exits or dies of SIGTERM",
    async () => {
      const name = `cashost${process.pid}`;
      execFileSync("useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", name], {
        stdio: "ignore",
      });
      try {
        const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim());
        const user = { uid: id("-u"), gid: id("-g") };
        for (const ends of ["// the host just ends", 'process.kill(process.pid, "SIGTERM");']) {
          const tmp = scratch("user");
          chmodSync(tmp, 0o755); // The user must reach its directory, as in /tmp.
          const run = await runHost(preparingHost(ends, user), tmp);
          expect(
            run.code === 0 || run.signal === "SIGTERM",
            `exit ${run.code ?? run.signal}: ${run.err}`,
          ).toBe(true);
          const dir = run.out.trim();
          expect(dir).toContain("claude-resume-");
          expect(resumeDirs(tmp)).toEqual([]);
        }
      } finally {
        execFileSync("userdel", [name], { stdio: "ignore" });
      }
    },
  );

  it(`claude ${CLAUDE_CLI_VERSION}: a host killed (SIGTERM) mid-session resumed from a store: the CLI dies and the directory goes`, async () => {
    await using bed = await testBed([{ text: "noted kiwi" }, { text: "still here" }]);
    const tmp = scratch("cli");
    const run = await runHost(
      [
        'import { readdirSync } from "node:fs";',
        'import { tmpdir } from "node:os";',
        'import { query } from SRC/index.ts";',
        'import { InMemorySessionStore } from SRC/backends/claude/index.ts";',
        "const store = new InMemorySessionStore();",
        `const options = ${JSON.stringify(bed.options())};`,
        "let sessionId;",
        'for await (const m of query({ prompt: "remember kiwi", options: { ...options, sessionStore: store } }))',
        '  if (m.type === "result") sessionId = m.sessionId;',
        'const q = query({ prompt: "what was it?", options: { ...options, sessionStore: store, resume: sessionId } });',
        "for await (const m of q) {",
        '  if (m.type !== "system") continue;',
        "  console.log(JSON.stringify({ dirs: readdirSync(tmpdir()).filter((n) => n.startsWith('claude-resume-')), pid: q.pid ?? null }));",
        '  process.kill(process.pid, "SIGTERM");',
        "  await new Promise(() => {});",
        "}",
      ],
      tmp,
    );
    expect(run.signal, run.err).toBe("SIGTERM");
    const seen = JSON.parse(run.out.trim().split("\n").at(-1) as string) as {
      dirs: string[];
      pid: number | null;
    };
    expect(seen.dirs).toHaveLength(1);
    expect(resumeDirs(tmp)).toEqual([]);
    if (seen.pid !== null) expect(await eventually(() => !isAlive(seen.pid as number))).toBe(true);
  });
});

describe("a store whose append() rejects with odd values never crashes the host", () => {
  it(`claude ${CLAUDE_CLI_VERSION}: a null-prototype object, a BigInt, a cycle: each a mirror_error; the turn ends well and the host exits 0 on its own`, async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const tmp = scratch("append");
    const started = performance.now();
    const run = await runHost(
      [
        'import { query } from SRC/index.ts";',
        'import { InMemorySessionStore } from SRC/backends/claude/index.ts";',
        "const cycle: Record<string, unknown> = {};",
        "cycle.self = cycle;",
        "const odd = [Object.create(null), 10n, cycle];",
        `const options = ${JSON.stringify(bed.options())};`,
        "const report = [];",
        "for (const value of odd) {",
        "  const store = new InMemorySessionStore();",
        "  store.append = () => Promise.reject(value);",
        "  const seen = { mirrorErrors: [], results: [] };",
        '  for await (const m of query({ prompt: "hi", options: { ...options, sessionStore: store } })) {',
        '    if (m.type === "system" && m.subtype === "mirror_error") seen.mirrorErrors.push(m.data.error);',
        '    if (m.type === "result") seen.results.push(m.isError);',
        "  }",
        "  report.push(seen);",
        "}",
        "console.log(JSON.stringify(report));",
      ],
      tmp,
    );
    const exitMs = Math.round(performance.now() - started);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out.trim().split("\n").at(-1) as string) as {
      mirrorErrors: string[];
      results: boolean[];
    }[];
    expect(report).toHaveLength(3);
    for (const seen of report) {
      expect(seen.results).toEqual([false]);
      expect(seen.mirrorErrors.length).toBeGreaterThan(0);
      for (const error of seen.mirrorErrors)
        expect(error).toMatch(/^SessionStore\.append\(\) failed after 3 attempt\(s\): \S/);
    }
    console.log(
      `session-store host | append rejects with odd values | host exit ${exitMs} ms | code ${run.code}`,
    );
  });
});
