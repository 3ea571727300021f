/**
 * The session folders are the agent's to write: a transcript, a title file, an archive mark or a
 * subagent's meta file may have been swapped for a symbolic link (to a file only this process may
 * write) or a FIFO (whose open blocks a thread-pool thread). The session helpers never write
 * through such a link and never wait on such a FIFO. Real links and FIFOs (mkfifo) on disk.
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  archiveSession,
  encodeProjectDir,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  listSessions,
  renameSession,
  tagSession,
} from "../../../src/backends/claude/index.js";
import { AgentSdkError, SessionNotFoundError } from "../../../src/index.js";
import { AGENT, PROJECT, RENAMED_SESSION, SUBAGENT_SESSION, useFixtureConfigDir } from "./session-fixture.js";

let configDir = "";
useFixtureConfigDir("cas-session-links-", (copy) => {
  configDir = copy;
});
let outside = "";
beforeEach(() => {
  outside = mkdtempSync(join(tmpdir(), "cas-session-victim-"));
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

const projectDir = () => join(configDir, "projects", encodeProjectDir(PROJECT));
const transcript = (id: string) => join(projectDir(), `${id}.jsonl`);
const sessionFolder = (id: string) => join(projectDir(), id);
const VICTIM_TEXT = "ssh-ed25519 AAAA... root@host\n";
const victim = (name = "victim") => {
  const path = join(outside, name);
  writeFileSync(path, VICTIM_TEXT);
  return path;
};
const fifo = (path: string) => {
  rmSync(path, { recursive: true, force: true });
  execFileSync("mkfifo", [path]);
};

describe("links the agent planted are not written through", () => {
  it("a transcript that is a link is not a session: tagSession finds nothing, the target is untouched", async () => {
    const target = victim();
    rmSync(transcript(RENAMED_SESSION));
    symlinkSync(target, transcript(RENAMED_SESSION));
    await expect(tagSession(RENAMED_SESSION, "x", { dir: PROJECT })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(renameSession(RENAMED_SESSION, "t", { dir: PROJECT })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect(readFileSync(target, "utf8")).toBe(VICTIM_TEXT);
    expect(await getSessionMessages(RENAMED_SESSION, { dir: PROJECT })).toEqual([]);
    expect((await listSessions({ dir: PROJECT })).map((s) => s.sessionId)).not.toContain(RENAMED_SESSION);
  });

  it("a project folder that is a link holds no session the helpers change", async () => {
    const real = projectDir();
    const moved = join(outside, "project");
    execFileSync("mv", [real, moved]);
    symlinkSync(moved, real);
    const before = readFileSync(join(moved, `${RENAMED_SESSION}.jsonl`), "utf8");
    await expect(tagSession(RENAMED_SESSION, "x", { dir: PROJECT })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect(readFileSync(join(moved, `${RENAMED_SESSION}.jsonl`), "utf8")).toBe(before);
  });

  it("renameSession replaces a title file that is a link instead of writing into its target", async () => {
    const target = victim();
    const sidecar = join(sessionFolder(RENAMED_SESSION), "custom-title.json");
    rmSync(sidecar, { force: true });
    symlinkSync(target, sidecar);
    // A link is not a title file of the CLI's: left as it is, and its target untouched.
    await renameSession(RENAMED_SESSION, "new title", { dir: PROJECT });
    expect(readFileSync(target, "utf8")).toBe(VICTIM_TEXT);
    // A real title file is replaced whole (a new file renamed over it, mode 0600).
    rmSync(sidecar);
    writeFileSync(sidecar, JSON.stringify({ customTitle: "old" }));
    await renameSession(RENAMED_SESSION, "newer title", { dir: PROJECT });
    expect(JSON.parse(readFileSync(sidecar, "utf8"))).toEqual({ customTitle: "newer title" });
    expect(readdirSync(sessionFolder(RENAMED_SESSION)).filter((n) => n.includes(".tmp."))).toEqual([]);
  });

  it("archiveSession refuses a session folder that is a link, writing nothing into its target", async () => {
    const folder = sessionFolder(RENAMED_SESSION);
    rmSync(folder, { recursive: true, force: true });
    symlinkSync(outside, folder);
    const error = await archiveSession(RENAMED_SESSION, { dir: PROJECT }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentSdkError);
    expect((error as Error).message).toMatch(/a symbolic link is there, not a directory/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("archiveSession makes a missing session folder and writes its mark there", async () => {
    rmSync(sessionFolder(RENAMED_SESSION), { recursive: true, force: true });
    await archiveSession(RENAMED_SESSION, { dir: PROJECT });
    expect((await getSessionInfo(RENAMED_SESSION, { dir: PROJECT }))?.archived).toBe(true);
  });
});

describe("FIFOs in a session folder are not waited on", () => {
  it("a transcript that is a FIFO is not listed, described or read", async () => {
    fifo(transcript(RENAMED_SESSION));
    const ids = (await listSessions({ dir: PROJECT })).map((s) => s.sessionId);
    expect(ids).not.toContain(RENAMED_SESSION);
    expect(ids).toContain(SUBAGENT_SESSION);
    expect(await getSessionInfo(RENAMED_SESSION, { dir: PROJECT })).toBeUndefined();
    expect(await getSessionMessages(RENAMED_SESSION, { dir: PROJECT })).toEqual([]);
  });

  it("a title file, an archive mark and a subagent meta file that are FIFOs are read as absent", async () => {
    fifo(join(sessionFolder(RENAMED_SESSION), "custom-title.json"));
    fifo(join(sessionFolder(RENAMED_SESSION), "archived.json"));
    const agentDir = join(sessionFolder(SUBAGENT_SESSION), "subagents");
    fifo(join(agentDir, `agent-${AGENT}.meta.json`));
    const info = await getSessionInfo(RENAMED_SESSION, { dir: PROJECT });
    expect(info?.sessionId).toBe(RENAMED_SESSION);
    expect(info?.archived).toBeUndefined();
    expect((await getSubagentMessages(SUBAGENT_SESSION, AGENT, { dir: PROJECT })).length).toBeGreaterThan(0);
    // Many at once do not tie up the thread pool: another file read in the process still answers.
    for (const id of [SUBAGENT_SESSION]) fifo(join(sessionFolder(id), "custom-title.json"));
    await Promise.all([listSessions({ dir: PROJECT }), listSessions({ dir: PROJECT }), listSessions()]);
  });
});

describe("the subagent folder", () => {
  it("a meta file that is a link is not followed", async () => {
    const target = join(outside, "meta.json");
    writeFileSync(target, JSON.stringify({ toolUseId: "toolu_from_outside" }));
    const meta = join(sessionFolder(SUBAGENT_SESSION), "subagents", `agent-${AGENT}.meta.json`);
    rmSync(meta, { force: true });
    mkdirSync(join(sessionFolder(SUBAGENT_SESSION), "subagents"), { recursive: true });
    symlinkSync(target, meta);
    const messages = await getSubagentMessages(SUBAGENT_SESSION, AGENT, { dir: PROJECT });
    expect(messages.length).toBeGreaterThan(0);
    expect(JSON.stringify(messages)).not.toContain("toolu_from_outside");
  });
});
