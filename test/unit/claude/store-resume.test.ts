/**
 * Materializing a session from a store for a resume: files written, configuration copied safely,
 * unsafe subpaths skipped, the temporary directory removed.
 */
import { spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InMemorySessionStore, SessionStoreError } from "../../../src/backends/claude/index.js";
import { projectKeyOf } from "../../../src/backends/claude/sessions/store-keys.js";
import { prepareStoreResume } from "../../../src/backends/claude/store-resume.js";
import { hostTag } from "../../../src/process/stale-dirs.js";

const SESSION = "0b0c6f4e-5a44-4e51-9a43-3f1d7f0c5a11";
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "cas-store-resume-"));
  made.push(dir);
  return dir;
}

describe("prepareStoreResume", () => {
  it("writes the session, its subagents and a safe copy of the configuration; cleanup removes it", async () => {
    const cwd = scratch();
    const config = scratch();
    writeFileSync(
      join(config, ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "a", refreshToken: "r" } }),
    );
    writeFileSync(
      join(config, "settings.json"),
      JSON.stringify({ model: "m", enabledPlugins: { p: true }, env: { CLAUDE_CONFIG_DIR: "/x", A: "1" } }),
    );
    writeFileSync(join(config, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true }));
    const store = new InMemorySessionStore();
    const projectKey = projectKeyOf(cwd);
    const main = [{ type: "user", uuid: "u1", message: { role: "user", content: "hi" } }];
    await store.append({ projectKey, sessionId: SESSION }, main);
    await store.append({ projectKey, sessionId: SESSION, subpath: "subagents/agent-a1" }, [
      { type: "agent_metadata", agentType: "general-purpose", finished: false },
      { type: "user", uuid: "s1" },
      { type: "agent_metadata", agentType: "general-purpose", finished: true },
    ]);
    await store.append({ projectKey, sessionId: SESSION, subpath: "../../escape" }, [{ type: "user" }]);

    const prepared = await prepareStoreResume(
      { cwd, sessionStore: store, resume: SESSION },
      { CLAUDE_CONFIG_DIR: config, HOME: cwd },
    );
    const dir = prepared?.configDir as string;
    expect(prepared?.resume).toBe(SESSION);
    const project = join(dir, "projects", projectKey);
    expect(readFileSync(join(project, `${SESSION}.jsonl`), "utf8")).toBe(`${JSON.stringify(main[0])}\n`);
    expect(readFileSync(join(project, SESSION, "subagents", "agent-a1.jsonl"), "utf8")).toBe(
      `${JSON.stringify({ type: "user", uuid: "s1" })}\n`,
    );
    expect(
      JSON.parse(readFileSync(join(project, SESSION, "subagents", "agent-a1.meta.json"), "utf8")),
    ).toEqual({
      agentType: "general-purpose",
      finished: true,
    });
    expect(existsSync(join(dir, "projects", "escape.jsonl"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, ".credentials.json"), "utf8"))).toEqual({
      claudeAiOauth: { accessToken: "a" },
    });
    expect(JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"))).toEqual({
      model: "m",
      env: { A: "1" },
    });
    expect(JSON.parse(readFileSync(join(dir, ".claude.json"), "utf8"))).toEqual({
      hasCompletedOnboarding: true,
    });
    await prepared?.cleanup();
    expect(existsSync(dir)).toBe(false);
  });

  it("removes first the directories left by dead hosts (SIGKILL runs no hook), and nothing else", async () => {
    const tmp = scratch();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // os.tmpdir() reads it at each call
    try {
      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
      const deadPid = Number(dead.stdout.toString());
      const tag = hostTag();
      const make = (name: string) => {
        const dir = join(tmp, name);
        mkdirSync(dir, { mode: 0o700 });
        writeFileSync(join(dir, ".credentials.json"), "a copy of the token");
        return dir;
      };
      const stale = make(`claude-resume-${tag}-${deadPid}-abcDEF`);
      const victim = scratch();
      writeFileSync(join(victim, "keep.txt"), "precious");
      symlinkSync(victim, join(stale, "out")); // removing the directory must not follow it
      const kept = [
        make(`claude-resume-${tag}-1-init01`), // pid 1 is alive
        make(`claude-resume-${tag === "00000000" ? "1" : "0"}0000000-${deadPid}-other1`), // another host
        make("claude-resume-aBc123"), // the older naming: no owner known
      ];
      const foreign = make(`claude-resume-${tag}-${deadPid}-uid123`);
      chownSync(foreign, 12345, 12345);
      const link = join(tmp, `claude-resume-${tag}-${deadPid}-link01`);
      symlinkSync(victim, link);

      const cwd = scratch();
      const store = new InMemorySessionStore();
      await store.append({ projectKey: projectKeyOf(cwd), sessionId: SESSION }, [{ type: "user" }]);
      const prepared = await prepareStoreResume(
        { cwd, sessionStore: store, resume: SESSION },
        { CLAUDE_CONFIG_DIR: scratch() },
      );
      const dir = prepared?.configDir as string;
      expect(dir.startsWith(join(tmp, `claude-resume-${tag}-${process.pid}-`))).toBe(true);
      expect(existsSync(stale)).toBe(false);
      expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("precious");
      for (const path of [...kept, foreign]) expect(existsSync(path), path).toBe(true);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      await prepared?.cleanup();
      expect(existsSync(dir)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("leaves the CLI to its local files when the store does not have the session, and handles continue", async () => {
    const cwd = scratch();
    const store = new InMemorySessionStore();
    expect(await prepareStoreResume({ cwd, sessionStore: store }, {})).toBeUndefined();
    expect(await prepareStoreResume({ cwd, sessionStore: store, resume: SESSION }, {})).toMatchObject({
      resume: SESSION,
    });
    expect(
      (await prepareStoreResume({ cwd, sessionStore: store, continueConversation: true }, {}))?.resume,
    ).toBeUndefined();
    const projectKey = projectKeyOf(cwd);
    const older = "11111111-1111-4111-8111-111111111111";
    await store.append({ projectKey, sessionId: older }, [{ type: "user" }]);
    await store.append({ projectKey, sessionId: SESSION }, [{ type: "user" }]);
    const continued = await prepareStoreResume(
      { cwd, sessionStore: store, continueConversation: true },
      { CLAUDE_CONFIG_DIR: scratch() },
    );
    expect(continued?.resume).toBe(SESSION);
    await continued?.cleanup();
  });

  it.skipIf(process.getuid?.() !== 0)("hands the directory to options.user, who runs the CLI", async () => {
    const cwd = scratch();
    const store = new InMemorySessionStore();
    await store.append({ projectKey: projectKeyOf(cwd), sessionId: SESSION }, [{ type: "user" }]);
    const prepared = await prepareStoreResume(
      { cwd, sessionStore: store, resume: SESSION, user: "nobody" },
      { CLAUDE_CONFIG_DIR: scratch() },
    );
    const dir = prepared?.configDir as string;
    const nobody = statSync(dir).uid;
    expect(nobody).not.toBe(0);
    expect(statSync(join(dir, "projects", projectKeyOf(cwd), `${SESSION}.jsonl`)).uid).toBe(nobody);
    await prepared?.cleanup();
    expect(existsSync(dir)).toBe(false);
  });

  it("fails with SessionStoreError on a rejected or slow listSubkeys and removes what it wrote", async () => {
    const cwd = scratch();
    const store = new InMemorySessionStore();
    await store.append({ projectKey: projectKeyOf(cwd), sessionId: SESSION }, [{ type: "user" }]);
    store.listSubkeys = () => new Promise(() => {});
    const error = await prepareStoreResume(
      { cwd, sessionStore: store, resume: SESSION, loadTimeoutMs: 20 },
      { CLAUDE_CONFIG_DIR: scratch() },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error).toMatchObject({ operation: "listSubkeys", timedOut: true });
    expect(resumeDirsWith(projectKeyOf(cwd))).toEqual([]);

    const aborted = new AbortController();
    aborted.abort();
    await expect(
      prepareStoreResume({ cwd, sessionStore: store, resume: SESSION, signal: aborted.signal }, {}),
    ).rejects.toThrow(/abort/i);
  });
});

/** Temporary resume directories holding this file's session for `projectKey`. */
function resumeDirsWith(projectKey: string): string[] {
  return readdirSync(tmpdir())
    .filter((n) => n.startsWith("claude-resume-"))
    .filter((n) => existsSync(join(tmpdir(), n, "projects", projectKey, `${SESSION}.jsonl`)));
}
