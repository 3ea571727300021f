/**
 * The session helpers with `{ sessionStore }`, and importSessionToStore, on sessions claude
 * 2.1.330 wrote (test/fixtures/claude/sessions/store): each imported into one store by ours and
 * into another by the official SDK, then read and changed by both SDKs' helpers side by side.
 */
import * as official from "@anthropic-ai/claude-agent-sdk";
import { beforeEach, describe, expect, it } from "vitest";
import {
  deleteSession,
  encodeProjectDir,
  foldSessionSummary,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  InMemorySessionStore,
  importSessionToStore,
  listSessions,
  listSubagents,
  renameSession,
  type SessionStore,
  type SessionStoreEntry,
  tagSession,
} from "../../../src/backends/claude/index.js";
// Our messages in the official SDK's field names, as the compat entry point returns them.
import { toOfficialSessionMessage as asOfficial } from "../../../src/compat/claude-agent-sdk/sessions.js";
import { InvalidOptionsError, SessionNotFoundError } from "../../../src/index.js";
import {
  AGENT,
  ALL_SESSIONS as ALL,
  PROJECT,
  RENAMED_SESSION,
  SUBAGENT_SESSION,
  useFixtureConfigDir,
} from "./session-fixture.js";

let configDir: string;
let ours: InMemorySessionStore;
let theirs: official.InMemorySessionStore;

useFixtureConfigDir("cas-store-helpers-", (copy) => {
  configDir = copy;
});

beforeEach(async () => {
  ours = new InMemorySessionStore();
  theirs = new official.InMemorySessionStore();
  for (const id of ALL) {
    await importSessionToStore(id, ours, { configDir, dir: PROJECT });
    await official.importSessionToStore(id, theirs, { dir: PROJECT });
  }
});

const withoutTime = <T extends { lastModified?: number }>(list: T[]) =>
  list.map(({ lastModified: _ignored, ...rest }) => rest);

describe("session helpers on a sessionStore, against the official SDK", () => {
  it("imports a session the way the official importSessionToStore does", async () => {
    const projectKey = encodeProjectDir(PROJECT);
    for (const id of ALL) {
      const key = { projectKey, sessionId: id };
      expect(ours.getEntries(key)).toEqual(theirs.getEntries(key));
      expect((await ours.listSubkeys(key)).sort()).toEqual((await theirs.listSubkeys(key)).sort());
      for (const subpath of await ours.listSubkeys(key)) {
        expect(ours.getEntries({ ...key, subpath })).toEqual(theirs.getEntries({ ...key, subpath }));
      }
    }
    expect(await ours.listSubkeys({ projectKey, sessionId: SUBAGENT_SESSION })).toEqual([
      `subagents/agent-${AGENT}`,
    ]);
    // Small batches: the same entries, in more appends.
    const small = new InMemorySessionStore();
    let appends = 0;
    const counting: SessionStore = {
      append: (k, e) => {
        appends += 1;
        return small.append(k, e);
      },
      load: (k) => small.load(k),
    };
    await importSessionToStore(RENAMED_SESSION, counting, { configDir, dir: PROJECT, batchSize: 2 });
    const key = { projectKey, sessionId: RENAMED_SESSION };
    expect(small.getEntries(key)).toEqual(ours.getEntries(key));
    expect(appends).toBe(Math.ceil(ours.getEntries(key).length / 2));
    await importSessionToStore(SUBAGENT_SESSION, small, { configDir, dir: PROJECT, includeSubagents: false });
    expect(await small.listSubkeys({ projectKey, sessionId: SUBAGENT_SESSION })).toEqual([]);
    await expect(importSessionToStore(crypto.randomUUID(), ours, { configDir })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("lists, describes and reads sessions from the store like the official helpers", async () => {
    const listed = await listSessions({ sessionStore: ours, dir: PROJECT });
    expect(listed.map((s) => s.sessionId).sort()).toEqual([...ALL].sort());
    // From the kept summaries (both stores keep them), and by loading each session (neither does).
    expect(withoutTime(listed).sort(bySession)).toEqual(
      withoutTime(await official.listSessions({ sessionStore: theirs, dir: PROJECT })).sort(bySession),
    );
    expect(listed.every((s) => s.fileSize === undefined)).toBe(true);
    const loaded = await listSessions({ sessionStore: withoutSummaries(ours), dir: PROJECT });
    expect(withoutTime(loaded).sort(bySession)).toEqual(
      withoutTime(await official.listSessions({ sessionStore: withoutSummaries(theirs), dir: PROJECT })).sort(
        bySession,
      ),
    );
    expect(loaded.every((s) => (s.fileSize ?? 0) > 0)).toBe(true);
    expect(await listSessions({ sessionStore: ours, dir: PROJECT, limit: 1, offset: 1 })).toEqual([
      listed[1],
    ]);
    expect(await listSessions({ sessionStore: ours, dir: "/elsewhere" })).toEqual([]);
    for (const id of ALL) {
      // Modified at the last entry's time, or now when it has none: equal up to the clock.
      const [mine, theirInfo] = [
        await getSessionInfo(id, { sessionStore: ours, dir: PROJECT }),
        await official.getSessionInfo(id, { sessionStore: theirs, dir: PROJECT }),
      ];
      expect(withoutTime([mine ?? {}])).toEqual(withoutTime([theirInfo ?? {}]));
      expect(Math.abs((mine?.lastModified ?? 0) - (theirInfo?.lastModified ?? 0))).toBeLessThan(60_000);
      for (const includeSystemMessages of [false, true]) {
        const mine = await getSessionMessages(id, {
          sessionStore: ours,
          dir: PROJECT,
          includeSystemMessages,
        });
        expect(mine.map(asOfficial)).toEqual(
          await official.getSessionMessages(id, {
            sessionStore: theirs,
            dir: PROJECT,
            includeSystemMessages,
          }),
        );
      }
    }
    expect(await listSubagents(SUBAGENT_SESSION, { sessionStore: ours, dir: PROJECT })).toEqual(
      await official.listSubagents(SUBAGENT_SESSION, { sessionStore: theirs, dir: PROJECT }),
    );
    const sub = await getSubagentMessages(SUBAGENT_SESSION, AGENT, { sessionStore: ours, dir: PROJECT });
    expect(sub.map(asOfficial)).toEqual(
      await official.getSubagentMessages(SUBAGENT_SESSION, AGENT, { sessionStore: theirs, dir: PROJECT }),
    );
    expect(sub.map((m) => m.content)).toEqual([
      "Say hi from the subagent",
      [{ type: "text", text: "hi from subagent" }],
    ]);
    await expect(
      getSubagentMessages(SUBAGENT_SESSION, "nope", { sessionStore: ours, dir: PROJECT }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await getSessionInfo(crypto.randomUUID(), { sessionStore: ours, dir: PROJECT })).toBeUndefined();
    expect(await getSessionMessages(crypto.randomUUID(), { sessionStore: ours, dir: PROJECT })).toEqual([]);
  });

  it("renames, tags, forks and deletes in the store; each SDK reads what the other wrote", async () => {
    const dir = PROJECT;
    await renameSession(RENAMED_SESSION, "  Stored title ", { sessionStore: ours, dir });
    await tagSession(RENAMED_SESSION, "kept", { sessionStore: ours, dir });
    await official.renameSession(RENAMED_SESSION, "  Stored title ", { sessionStore: theirs, dir });
    await official.tagSession(RENAMED_SESSION, "kept", { sessionStore: theirs, dir });
    const info = await getSessionInfo(RENAMED_SESSION, { sessionStore: ours, dir });
    expect(info).toMatchObject({ customTitle: "Stored title", tag: "kept" });
    // Both read the entries the other SDK wrote the same way (modified: each entry's own write time).
    const theirInfo = await official.getSessionInfo(RENAMED_SESSION, { sessionStore: theirs, dir });
    expect(withoutTime([info ?? {}])).toEqual(withoutTime([theirInfo ?? {}]));
    expect(await official.getSessionInfo(RENAMED_SESSION, { sessionStore: ours, dir })).toEqual(info);

    const fork = await forkSession(RENAMED_SESSION, { sessionStore: ours, dir, title: "Branch" });
    const theirFork = await official.forkSession(RENAMED_SESSION, {
      sessionStore: theirs,
      dir,
      title: "Branch",
    });
    const forked = await getSessionMessages(fork.sessionId, { sessionStore: ours, dir });
    const officialForked = await official.getSessionMessages(theirFork.sessionId, {
      sessionStore: theirs,
      dir,
    });
    expect(forked.map((m) => m.message)).toEqual(officialForked.map((m) => m.message));
    expect((await getSessionInfo(fork.sessionId, { sessionStore: ours, dir }))?.customTitle).toBe("Branch");
    // The official helpers read our fork in our store.
    expect(
      (await official.getSessionMessages(fork.sessionId, { sessionStore: ours, dir })).map((m) => m.uuid),
    ).toEqual(forked.map((m) => m.uuid));
    await expect(forkSession(crypto.randomUUID(), { sessionStore: ours, dir })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );

    await deleteSession(SUBAGENT_SESSION, { sessionStore: ours, dir });
    expect(await getSessionMessages(SUBAGENT_SESSION, { sessionStore: ours, dir })).toEqual([]);
    expect(await listSubagents(SUBAGENT_SESSION, { sessionStore: ours, dir })).toEqual([]);
    // A store without delete(): nothing happens, as the official contract says (WORM stores).
    const appendOnly: SessionStore = { append: (k, e) => ours.append(k, e), load: (k) => ours.load(k) };
    await deleteSession(RENAMED_SESSION, { sessionStore: appendOnly, dir });
    expect((await getSessionMessages(RENAMED_SESSION, { sessionStore: ours, dir })).length).toBeGreaterThan(
      0,
    );
    // The local files are untouched by all of it.
    expect((await listSessions({ configDir })).map((s) => s.sessionId).sort()).toEqual([...ALL].sort());
  });

  it("folds summaries exactly as the official foldSessionSummary, in one batch or many", async () => {
    const projectKey = encodeProjectDir(PROJECT);
    for (const id of ALL) {
      const key = { projectKey, sessionId: id };
      const entries = ours.getEntries(key);
      expect(foldSessionSummary(undefined, key, entries, { mtime: 5 })).toEqual(
        official.foldSessionSummary(undefined, key, entries, { mtime: 5 }),
      );
      let mine: ReturnType<typeof foldSessionSummary> | undefined;
      let theirsFold: ReturnType<typeof official.foldSessionSummary> | undefined;
      for (let i = 0; i < entries.length; i += 3) {
        const batch = entries.slice(i, i + 3);
        mine = foldSessionSummary(mine, key, batch, { mtime: i });
        theirsFold = official.foldSessionSummary(theirsFold, key, batch, { mtime: i });
        expect(mine).toEqual(theirsFold);
      }
    }
    // Prompts the CLI shows differently: long, a shell command, a slash command only.
    const key = { projectKey, sessionId: RENAMED_SESSION };
    const prompts: SessionStoreEntry[] = [
      { type: "user", message: { role: "user", content: "<command-name>/compact</command-name>" } },
      { type: "user", message: { role: "user", content: [{ type: "text", text: `x${"é".repeat(300)}` }] } },
      { type: "user", message: { role: "user", content: "<bash-input>ls -la</bash-input>" } },
      { type: "tag", tag: "" },
      { type: "relocated", relocatedCwd: "/new/place" },
    ];
    for (let n = 1; n <= prompts.length; n++) {
      const batch = prompts.slice(0, n);
      expect(foldSessionSummary(undefined, key, batch)).toEqual(
        official.foldSessionSummary(undefined, key, batch),
      );
      const bash = [prompts[0], prompts[2]] as SessionStoreEntry[];
      expect(foldSessionSummary(undefined, key, bash)).toEqual(
        official.foldSessionSummary(undefined, key, bash),
      );
    }
  });

  it("lists a session whose load fails with an empty summary, as the official helpers do", async () => {
    const failing = (store: SessionStore): SessionStore => ({
      ...withoutSummaries(store),
      load: (key) =>
        key.sessionId === RENAMED_SESSION ? Promise.reject(new Error("store is down")) : store.load(key),
    });
    const mine = await listSessions({ sessionStore: failing(ours), dir: PROJECT });
    const theirsListed = await official.listSessions({ sessionStore: failing(theirs), dir: PROJECT });
    expect(withoutTime(mine).sort(bySession)).toEqual(withoutTime(theirsListed).sort(bySession));
    expect(mine.find((s) => s.sessionId === RENAMED_SESSION)).toMatchObject({ summary: "" });
    expect(mine).toHaveLength(ALL.length);
    // Reading that session itself still reports the failure.
    await expect(
      getSessionInfo(RENAMED_SESSION, { sessionStore: failing(ours), dir: PROJECT }),
    ).rejects.toThrow(/store is down/);
  });

  it("needs the optional store methods it uses", async () => {
    const minimal: SessionStore = { append: async () => {}, load: async () => null };
    await expect(listSessions({ sessionStore: minimal })).rejects.toBeInstanceOf(InvalidOptionsError);
    await expect(listSubagents(SUBAGENT_SESSION, { sessionStore: minimal })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
    await expect(official.listSessions({ sessionStore: minimal })).rejects.toThrow(/listSessions/);
  });
});

/**
 * A store without `listSessionSummaries`, so the SDKs list by loading each session.
 */
function withoutSummaries(store: SessionStore): SessionStore {
  return {
    append: (key, entries) => store.append(key, entries),
    load: (key) => store.load(key),
    listSessions: (projectKey) =>
      (store.listSessions as NonNullable<SessionStore["listSessions"]>)(projectKey),
  };
}

function bySession(a: { sessionId: string }, b: { sessionId: string }): number {
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}
