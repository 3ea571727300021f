/**
 * Session helpers on a store the real claude 2.1.330 wrote (test/fixtures/claude/sessions/store,
 * see capture.ts there), checked against the official SDK's helpers of the same names reading the
 * same files, plus the edge cases a CLI run does not produce on demand.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { beforeEach, describe, expect, it } from "vitest";
import {
  deleteSession,
  encodeProjectDir,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  listSessions,
  listSubagents,
  renameSession,
  type SessionMessage,
  tagSession,
} from "../../../src/backends/claude/index.js";
import * as compat from "../../../src/compat/claude-agent-sdk/index.js";
// Our messages in the official SDK's field names, as the compat entry point returns them.
import { toOfficialSessionMessage as asOfficial } from "../../../src/compat/claude-agent-sdk/sessions.js";
import { InvalidOptionsError, SessionNotFoundError } from "../../../src/index.js";
import {
  AGENT,
  ALL_SESSIONS as ALL,
  COMPACTED_SESSION,
  PROJECT,
  RENAMED_SESSION,
  SUBAGENT_SESSION,
  useFixtureConfigDir,
} from "./session-fixture.js";

let configDir: string;
useFixtureConfigDir("cas-sessions-unit-", (copy) => {
  configDir = copy;
  // Equal modification times: the order then rests on the tie-break alone, in both SDKs.
  const project = join(copy, "projects", encodeProjectDir(PROJECT));
  for (const id of [SUBAGENT_SESSION, RENAMED_SESSION])
    utimesSync(join(project, `${id}.jsonl`), 1_800_000_000, 1_800_000_000);
});

describe("session helpers on a store claude 2.1.330 wrote, against the official SDK", () => {
  it("lists and describes sessions like the official listSessions / getSessionInfo", async () => {
    const ours = await listSessions({ configDir });
    expect(ours).toEqual(await official.listSessions());
    expect(ours.map((s) => s.sessionId).sort()).toEqual([...ALL].sort());
    expect(ours.find((s) => s.sessionId === RENAMED_SESSION)).toMatchObject({
      customTitle: "Renamed by the CLI",
      summary: "Renamed by the CLI",
      firstPrompt: "first question",
      cwd: PROJECT,
    });
    for (const id of ALL) {
      expect(await getSessionInfo(id, { configDir })).toEqual(await official.getSessionInfo(id));
    }
    // The project folder exists only in the store: `dir` is matched by its encoded name.
    expect(await listSessions({ configDir, dir: PROJECT })).toEqual(ours);
    expect(await listSessions({ configDir, limit: 1 })).toEqual(await official.listSessions({ limit: 1 }));
    expect(await listSessions({ configDir, offset: 1 })).toEqual(await official.listSessions({ offset: 1 }));
  });

  it("the compat entry point's getSessionMessages / getSubagentMessages return exactly the official shape", async () => {
    for (const id of ALL) {
      expect(await compat.getSessionMessages(id, { configDir })).toStrictEqual(
        await official.getSessionMessages(id),
      );
    }
    expect(await compat.getSubagentMessages(SUBAGENT_SESSION, AGENT, { configDir })).toStrictEqual(
      await official.getSubagentMessages(SUBAGENT_SESSION, AGENT),
    );
  });

  it("reads conversations and subagent transcripts like the official helpers", async () => {
    for (const id of ALL) {
      const ours = await getSessionMessages(id, { configDir });
      expect(ours.map(asOfficial)).toEqual(await official.getSessionMessages(id));
      const withSystem = await getSessionMessages(id, { configDir, includeSystemMessages: true });
      expect(withSystem.map(asOfficial)).toEqual(
        await official.getSessionMessages(id, { includeSystemMessages: true }),
      );
    }
    const renamed = await getSessionMessages(RENAMED_SESSION, { configDir });
    expect(renamed.map((m) => m.content)).toEqual([
      "first question",
      [{ type: "text", text: "first answer" }],
      "second question",
      [{ type: "text", text: "second answer" }],
    ]);

    // After /compact the conversation starts at the compaction summary, as the CLI resumes it.
    const compacted = await getSessionMessages(COMPACTED_SESSION, { configDir });
    expect(typeof compacted[0]?.content === "string" && compacted[0].content).toMatch(
      /continued from a previous/,
    );
    expect(compacted.slice(-4).map((m) => m.content)).toEqual([
      "after compaction",
      [{ type: "text", text: "Main done." }],
      "resumed prompt",
      [{ type: "text", text: "Main done." }],
    ]);

    const agents = await listSubagents(SUBAGENT_SESSION, { configDir });
    expect(agents).toEqual(await official.listSubagents(SUBAGENT_SESSION));
    expect(agents).toEqual([AGENT]);
    const sub = await getSubagentMessages(SUBAGENT_SESSION, AGENT, { configDir });
    expect(sub.map(asOfficial)).toEqual(await official.getSubagentMessages(SUBAGENT_SESSION, AGENT));
    expect(sub.map((m) => m.content)).toEqual([
      "Say hi from the subagent",
      [{ type: "text", text: "hi from subagent" }],
    ]);
    await expect(getSubagentMessages(SUBAGENT_SESSION, "nope", { configDir })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("writes titles, tags and forks the official helpers read back the same way", async () => {
    await renameSession(SUBAGENT_SESSION, "Ours", { configDir });
    await tagSession(SUBAGENT_SESSION, "blue", { configDir });
    // A title the CLI also keeps beside the transcript is updated with it.
    await renameSession(RENAMED_SESSION, "Ours too", { configDir, dir: PROJECT });
    for (const id of [RENAMED_SESSION, SUBAGENT_SESSION]) {
      expect(await getSessionInfo(id, { configDir })).toEqual(await official.getSessionInfo(id));
    }
    expect(await getSessionInfo(SUBAGENT_SESSION, { configDir })).toMatchObject({
      customTitle: "Ours",
      tag: "blue",
    });
    expect((await getSessionInfo(RENAMED_SESSION, { configDir }))?.customTitle).toBe("Ours too");

    // Whole, and cut after the first answer and before the last one; compared with the official fork.
    const strip = (ms: SessionMessage[]) => ms.map((m) => [m.type, m.content]);
    for (const id of ALL) {
      const source = await getSessionMessages(id, { configDir });
      for (const upToMessageId of [undefined, source[1]?.uuid, source.at(-2)?.uuid]) {
        const cut = upToMessageId === undefined ? {} : { upToMessageId };
        const fork = await forkSession(id, { configDir, ...cut });
        const theirs = await official.forkSession(id, cut);
        const read = (sessionId: string) =>
          getSessionMessages(sessionId, { configDir, includeSystemMessages: true });
        expect(strip(await read(fork.sessionId))).toEqual(strip(await read(theirs.sessionId)));
        expect((await official.getSessionMessages(fork.sessionId)).map((m) => m.uuid)).toEqual(
          (await getSessionMessages(fork.sessionId, { configDir })).map((m) => m.uuid),
        );
        expect((await getSessionInfo(fork.sessionId, { configDir }))?.customTitle).toBe(
          (await official.getSessionInfo(theirs.sessionId))?.customTitle,
        );
      }
    }

    await deleteSession(SUBAGENT_SESSION, { configDir });
    expect(await official.getSessionInfo(SUBAGENT_SESSION)).toBeUndefined();
    expect(await official.listSubagents(SUBAGENT_SESSION)).toEqual([]);
  });
});

describe("session helpers: edge cases", () => {
  const project = "/work/some project";
  let dir: string;
  beforeEach(() => {
    dir = join(configDir, "projects", encodeProjectDir(project));
    mkdirSync(dir, { recursive: true });
  });

  function write(id: string, entries: unknown[], tail = ""): string {
    const path = join(dir, `${id}.jsonl`);
    writeFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join("") + tail);
    return path;
  }
  const user = (uuid: string, parentUuid: string | null, content: string, extra = {}) => ({
    type: "user",
    uuid,
    parentUuid,
    sessionId: "s",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: project,
    message: { role: "user", content },
    ...extra,
  });
  const assistant = (uuid: string, parentUuid: string, text: string) => ({
    type: "assistant",
    uuid,
    parentUuid,
    sessionId: "s",
    message: { role: "assistant", content: [{ type: "text", text }] },
  });

  it("encodes project directories as the CLI does", () => {
    expect(encodeProjectDir("/tmp/cas-sessions-6aPSMf")).toBe("-tmp-cas-sessions-6aPSMf");
    expect(encodeProjectDir("/a b/ü.c")).toBe("-a-b---c");
    const long = `/${"x".repeat(300)}`;
    expect(encodeProjectDir(long)).toMatch(/^-x{199}-[0-9a-z]+$/);
  });

  it("follows the newest branch after a rewind, survives cycles and damaged lines", async () => {
    const id = randomUUID();
    write(
      id,
      [
        user("u1", null, "root prompt"),
        assistant("a1", "u1", "old answer"),
        user("u2", "a1", "abandoned branch"),
        user("u3", "a1", "edited prompt"),
        {
          type: "user",
          uuid: "meta",
          parentUuid: "u3",
          isMeta: true,
          message: { role: "user", content: "caveat" },
        },
        assistant("a3", "meta", "new answer"),
      ],
      "{ not json\n[1,2]\n",
    );
    const texts = (await getSessionMessages(id, { configDir })).map((m) => m.content);
    expect(texts).toEqual([
      "root prompt",
      [{ type: "text", text: "old answer" }],
      "edited prompt",
      [{ type: "text", text: "new answer" }],
    ]);

    const loop = randomUUID();
    write(loop, [user("x", "y", "one"), user("y", "x", "two")]);
    expect((await getSessionMessages(loop, { configDir })).map((m) => m.content)).toEqual(["one", "two"]);
  });

  it("describes a large transcript from its two ends", async () => {
    const id = randomUUID();
    const filler = Array.from({ length: 400 }, (_, i) => ({
      type: "progress",
      uuid: `p${i}`,
      pad: "z".repeat(500),
    }));
    write(id, [
      user("u1", null, "very first prompt"),
      ...filler,
      { type: "tag", tag: "late", sessionId: id },
    ]);
    const info = await getSessionInfo(id, { configDir, dir: project });
    expect(info).toMatchObject({ firstPrompt: "very first prompt", tag: "late", cwd: project });
    expect(info?.fileSize).toBeGreaterThan(200_000);
  });

  it("appends after a last line that lacks its newline, and never creates a transcript", async () => {
    const id = randomUUID();
    const path = write(id, [user("u1", null, "hello")], JSON.stringify(assistant("a1", "u1", "half")));
    await renameSession(id, "Titled", { configDir });
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(["user", "assistant", "custom-title"]);
    expect((await getSessionInfo(id, { configDir }))?.summary).toBe("Titled");

    appendFileSync(path, `${JSON.stringify({ type: "tag", tag: "", sessionId: id })}\n`);
    expect((await getSessionInfo(id, { configDir }))?.tag).toBeUndefined();
    await expect(renameSession(randomUUID(), "x", { configDir })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("lists the sessions of every git worktree of dir unless includeWorktrees is false, like the official SDK", async () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "cas-repo-")));
    const worktree = `${repo}-wt`;
    try {
      const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { stdio: "ignore" });
      git("init", "-q");
      git(
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
      );
      git("worktree", "add", "-q", worktree);
      const ids: string[] = [];
      for (const path of [repo, worktree]) {
        const folder = join(configDir, "projects", encodeProjectDir(path));
        mkdirSync(folder, { recursive: true });
        const id = randomUUID();
        ids.push(id);
        writeFileSync(
          join(folder, `${id}.jsonl`),
          `${JSON.stringify(user("u1", null, `prompt in ${path}`))}\n`,
        );
      }
      const both = await listSessions({ configDir, dir: repo });
      expect(both.map((s) => s.sessionId).sort()).toEqual([...ids].sort());
      expect(both.map((s) => s.sessionId).sort()).toEqual(
        (await official.listSessions({ dir: repo })).map((s) => s.sessionId).sort(),
      );
      const own = await listSessions({ configDir, dir: repo, includeWorktrees: false });
      expect(own.map((s) => s.sessionId)).toEqual([ids[0]]);
      expect(own.map((s) => s.sessionId)).toEqual(
        (await official.listSessions({ dir: repo, includeWorktrees: false })).map((s) => s.sessionId),
      );
    } finally {
      rmSync(repo, { recursive: true, force: true });
      rmSync(worktree, { recursive: true, force: true });
    }
  });

  it("rejects what cannot be a session before touching the disk", async () => {
    await expect(getSessionMessages("../../etc/passwd", { configDir })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
    await expect(deleteSession("not-a-uuid", { configDir })).rejects.toBeInstanceOf(InvalidOptionsError);
    await expect(tagSession(SUBAGENT_SESSION, "  ", { configDir })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
    expect(await listSessions({ configDir: join(configDir, "absent") })).toEqual([]);
    expect(await getSessionInfo(randomUUID(), { configDir })).toBeUndefined();
    expect(await getSessionMessages(randomUUID(), { configDir })).toEqual([]);
  });
});
