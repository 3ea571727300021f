/**
 * A session store that answers garbage or fails oddly: every store call of a resume from the store
 * and of the session helpers with `{ sessionStore }` ends in a `SessionStoreError` that names the
 * call and what was wrong — never a bare `TypeError`, never a silent "nothing stored", and a resume
 * leaves no temporary directory behind.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  deleteSession,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  InMemorySessionStore,
  listSessions,
  listSubagents,
  renameSession,
  type SessionStore,
  SessionStoreError,
  tagSession,
} from "../../../src/backends/claude/index.js";
import { callStore } from "../../../src/backends/claude/sessions/store-calls.js";
import { projectKeyOf } from "../../../src/backends/claude/sessions/store-keys.js";
import { prepareStoreResume } from "../../../src/backends/claude/store-resume.js";

const SESSION = "0b0c6f4e-5a44-4e51-9a43-3f1d7f0c5a11";
const cwd = mkdtempSync(join(tmpdir(), "cas-store-errors-"));
const projectKey = projectKeyOf(cwd);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function cycle(): Record<string, unknown> {
  const value: Record<string, unknown> = { type: "user" };
  value.self = value;
  return value;
}

/** Thrown or rejected values that `String()` or `JSON.stringify` choke on. */
const ODD_FAILURES: [string, () => unknown][] = [
  ["a null-prototype object", () => Object.create(null)],
  ["a BigInt", () => 10n],
  ["a circular object", cycle],
  ["an object whose toString throws", () => ({ toString: () => ({}) })],
  ["undefined", () => undefined],
];

/** `load()` answers that are not entries. */
const BAD_LOADS: [string, unknown, RegExp][] = [
  ["a string", "garbage", /returned "garbage" \(expected an array of entries or null\)/],
  ["an object", { entries: [] }, /expected an array of entries or null/],
  ["a null entry", [{ type: "user" }, null], /entry 1 null \(expected an object\)/],
  ["a number entry", [5], /entry 0 5 \(expected an object\)/],
  ["an entry with a BigInt", [{ type: "user", n: 10n }], /entry 0 that cannot be written as JSON.*BigInt/],
  ["a circular entry", [cycle()], /entry 0 that cannot be written as JSON.*circular/],
];

/** `listSessions()` answers that are not a listing. */
const BAD_LISTINGS: [string, unknown][] = [
  ["a string", "garbage"],
  ["an object", { sessions: [] }],
  ["a null item", [null]],
  ["an item without mtime", [{ sessionId: SESSION }]],
  ["a numeric sessionId", [{ sessionId: 5, mtime: 1 }]],
  ["a BigInt mtime", [{ sessionId: SESSION, mtime: 10n }]],
];

function storeWith(overrides: Partial<Record<keyof SessionStore, unknown>>): SessionStore {
  const store = new InMemorySessionStore();
  void store.append({ projectKey, sessionId: SESSION }, [
    { type: "user", uuid: "u1", message: { role: "user", content: "hi" } },
  ]);
  return Object.assign(store, overrides) as SessionStore;
}

async function failure(run: () => Promise<unknown>): Promise<SessionStoreError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionStoreError);
  return error as SessionStoreError;
}

function resumeDirsLeft(tmp: string): string[] {
  return readdirSync(tmp).filter((n) => n.startsWith("claude-resume-"));
}

describe("resume from a store: odd failures and garbage answers", () => {
  const tmp = mkdtempSync(join(tmpdir(), "cas-store-errors-tmp-"));
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  afterAll(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(tmp, { recursive: true, force: true });
  });
  const resume = (store: SessionStore, extra: object = {}) =>
    prepareStoreResume({ cwd, sessionStore: store, resume: SESSION, ...extra }, { CLAUDE_CONFIG_DIR: tmp });

  it.each(ODD_FAILURES)("load() rejecting with %s", async (_, value) => {
    const error = await failure(() => resume(storeWith({ load: () => Promise.reject(value()) })));
    expect(error.operation).toBe("load");
    expect(error.message).toMatch(
      new RegExp(`^SessionStore\\.load\\(\\) failed for session ${SESSION}: \\S`),
    );
  });

  it.each(ODD_FAILURES)("load() throwing %s synchronously", async (_, value) => {
    const error = await failure(() =>
      resume(
        storeWith({
          load: () => {
            throw value();
          },
        }),
      ),
    );
    expect(error.operation).toBe("load");
  });

  it.each(BAD_LOADS)("load() answering %s", async (_, answer, message) => {
    const error = await failure(() => resume(storeWith({ load: async () => answer })));
    expect(error.operation).toBe("load");
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`for session ${SESSION}`);
    expect(resumeDirsLeft(tmp)).toEqual([]);
  });

  it.each(BAD_LOADS)("a subagent's load() answering %s", async (_, answer, message) => {
    const store = storeWith({});
    const load = store.load.bind(store);
    store.listSubkeys = async () => ["subagents/agent-a1"];
    store.load = async (key) => (key.subpath !== undefined ? (answer as never) : load(key));
    const error = await failure(() => resume(store));
    expect(error.message).toMatch(message);
    expect(error.message).toContain("subpath subagents/agent-a1");
    expect(resumeDirsLeft(tmp)).toEqual([]);
  });

  it.each(BAD_LISTINGS)("continueConversation with listSessions() answering %s", async (_, answer) => {
    const error = await failure(() =>
      prepareStoreResume(
        { cwd, sessionStore: storeWith({ listSessions: async () => answer }), continueConversation: true },
        {},
      ),
    );
    expect(error.operation).toBe("listSessions");
    expect(error.message).toContain(`for project ${projectKey}`);
  });

  it.each([
    ["a string", "garbage"],
    ["a number item", [5]],
  ])("listSubkeys() answering %s", async (_, answer) => {
    const error = await failure(() => resume(storeWith({ listSubkeys: async () => answer })));
    expect(error.operation).toBe("listSubkeys");
    expect(resumeDirsLeft(tmp)).toEqual([]);
  });
});

describe("session helpers with { sessionStore }: odd failures and garbage answers", () => {
  const at = { dir: cwd };

  it.each(BAD_LISTINGS)("listSessions() answering %s", async (_, answer) => {
    const error = await failure(() =>
      listSessions({ ...at, sessionStore: storeWith({ listSessions: async () => answer }) }),
    );
    expect(error.operation).toBe("listSessions");
  });

  it("listSessionSummaries() answering garbage or rejecting oddly", async () => {
    for (const answer of ["garbage", [null], [{ sessionId: SESSION, mtime: 1 }]]) {
      const error = await failure(() =>
        listSessions({ ...at, sessionStore: storeWith({ listSessionSummaries: async () => answer }) }),
      );
      expect(error.operation).toBe("listSessionSummaries");
    }
    const error = await failure(() =>
      listSessions({
        ...at,
        sessionStore: storeWith({ listSessionSummaries: () => Promise.reject(Object.create(null)) }),
      }),
    );
    expect(error.operation).toBe("listSessionSummaries");
  });

  it("listSessions() rejecting with a null-prototype object", async () => {
    const error = await failure(() =>
      listSessions({
        ...at,
        sessionStore: storeWith({ listSessions: () => Promise.reject(Object.create(null)) }),
      }),
    );
    expect(error.operation).toBe("listSessions");
  });

  it.each(BAD_LOADS)(
    "getSessionInfo / getSessionMessages / forkSession with load() answering %s",
    async (_, answer) => {
      const store = storeWith({ load: async () => answer });
      // getSessionInfo serialises the entries to describe them: every bad answer fails it.
      expect((await failure(() => getSessionInfo(SESSION, { ...at, sessionStore: store }))).operation).toBe(
        "load",
      );
      // The others read the entries as objects: only shapes they cannot read fail them.
      if (!Array.isArray(answer) || answer.some((e) => typeof e !== "object" || e === null)) {
        for (const run of [
          () => getSessionMessages(SESSION, { ...at, sessionStore: store }),
          () => forkSession(SESSION, { ...at, sessionStore: store }),
        ]) {
          expect((await failure(run)).operation).toBe("load");
        }
      }
    },
  );

  it.each(ODD_FAILURES)("every store call rejecting with %s", async (_, value) => {
    const reject = () => Promise.reject(value());
    const store = storeWith({
      load: reject,
      append: reject,
      delete: reject,
      listSubkeys: reject,
    });
    const calls: [string, () => Promise<unknown>][] = [
      ["load", () => getSessionInfo(SESSION, { ...at, sessionStore: store })],
      ["load", () => getSessionMessages(SESSION, { ...at, sessionStore: store })],
      ["load", () => forkSession(SESSION, { ...at, sessionStore: store })],
      ["append", () => renameSession(SESSION, "t", { ...at, sessionStore: store })],
      ["append", () => tagSession(SESSION, "t", { ...at, sessionStore: store })],
      ["delete", () => deleteSession(SESSION, { ...at, sessionStore: store })],
      ["listSubkeys", () => listSubagents(SESSION, { ...at, sessionStore: store })],
      ["listSubkeys", () => getSubagentMessages(SESSION, "a1", { ...at, sessionStore: store })],
    ];
    for (const [operation, run] of calls) {
      const error = await failure(run);
      expect(error.operation).toBe(operation);
      expect(error.message).toContain(`for session ${SESSION}`);
    }
  });

  it("listSubkeys() answering garbage", async () => {
    for (const answer of ["garbage", [5], null]) {
      const store = storeWith({ listSubkeys: async () => answer });
      expect((await failure(() => listSubagents(SESSION, { ...at, sessionStore: store }))).operation).toBe(
        "listSubkeys",
      );
    }
  });

  it("a store call that never settles: every helper fails after 60 s with a timed-out SessionStoreError naming the call", async () => {
    const never = () => new Promise<never>(() => undefined);
    const store = storeWith({
      load: never,
      listSessions: never,
      listSessionSummaries: never,
      append: never,
      delete: never,
      listSubkeys: never,
    });
    const calls: [string, () => Promise<unknown>][] = [
      ["listSessionSummaries", () => listSessions({ ...at, sessionStore: store })],
      ["load", () => getSessionInfo(SESSION, { ...at, sessionStore: store })],
      ["load", () => getSessionMessages(SESSION, { ...at, sessionStore: store })],
      ["load", () => forkSession(SESSION, { ...at, sessionStore: store })],
      ["append", () => renameSession(SESSION, "t", { ...at, sessionStore: store })],
      ["delete", () => deleteSession(SESSION, { ...at, sessionStore: store })],
      ["listSubkeys", () => listSubagents(SESSION, { ...at, sessionStore: store })],
    ];
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      for (const [operation, run] of calls) {
        const settled = run().then(
          () => "resolved",
          (e: unknown) => e,
        );
        await vi.advanceTimersByTimeAsync(59_999);
        expect(await Promise.race([settled, Promise.resolve("pending")])).toBe("pending");
        await vi.advanceTimersByTimeAsync(1);
        const error = await settled;
        expect(error).toBeInstanceOf(SessionStoreError);
        expect(error).toMatchObject({ operation, timedOut: true });
        expect((error as Error).message).toMatch(/timed out after 60000 ms/);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("with no time bound (Infinity), an abort still ends the wait for a store call", async () => {
    const controller = new AbortController();
    const waiting = callStore("load", "for session x", () => new Promise<never>(() => undefined), {
      timeoutMs: Number.POSITIVE_INFINITY,
      signal: controller.signal,
    }).then(
      () => "resolved",
      (e: unknown) => e,
    );
    controller.abort();
    expect(await waiting).toMatchObject({ name: "AbortError" });
  });
});
