/**
 * `sessionStore` against the real Claude Code CLI (2.1.330), offline: the CLI runs with
 * `--session-mirror` and the store receives exactly the lines it writes to its local transcripts.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import {
  encodeProjectDir,
  InMemorySessionStore,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
  SessionStoreError,
} from "../../src/backends/claude/index.js";
import {
  AgentSdkClient,
  getBackend,
  isSystemMessage,
  loadBackend,
  type Message,
  query,
  UnsupportedOptionsError,
} from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import { eventually } from "../lifecycle/support/processes.js";
import { type Bed, CLAUDE_CLI_VERSION, collect, delegatingTurn, results, testBed } from "./support.js";

afterEach(async () => {
  expect(await eventually(() => liveGroupCount() === 0)).toBe(true);
});

/** Delegates to a subagent on "delegate please", so the session has a subagent transcript too. */
const delegating = delegatingTurn();

/** An in-memory store that also records each `append` call. */
class RecordingStore extends InMemorySessionStore {
  readonly calls: { key: SessionKey; count: number }[] = [];
  override async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    this.calls.push({ key, count: entries.length });
    await super.append(key, entries);
  }
}

function configDirOf(bed: Bed): string {
  return bed.options().env?.CLAUDE_CONFIG_DIR as string;
}

function jsonLines(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** The CLI's local log of model requests, kept out of the mirror. */
function isRequestLog(entry: unknown): boolean {
  return String((entry as { type?: unknown }).type).startsWith("api-request");
}

/** Every text the model was sent in a request's messages. */
function sentTexts(request: RecordedRequest | undefined): string {
  return JSON.stringify((request?.body as { messages?: unknown } | undefined)?.messages ?? []);
}

/** The temporary configuration directories of resumes from a store that hold this session now. */
function resumeDirsOf(projectKey: string, sessionId: string): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith("claude-resume-"))
    .filter((name) => existsSync(join(tmpdir(), name, "projects", projectKey, `${sessionId}.jsonl`)));
}

function mirrorErrors(messages: Message[]) {
  return messages.filter((m) => isSystemMessage(m, "mirror_error"));
}

describe(`sessionStore mirroring against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("gives the store exactly the lines of the local transcripts, subagents included; no frame reaches the consumer", async () => {
    await using bed = await testBed([delegating, delegating, delegating]);
    const store = new RecordingStore();
    const recording = join(bed.cwd, "..", `${encodeProjectDir(bed.cwd)}.rec.jsonl`);
    onTestFinished(() => rmSync(recording, { force: true }));
    const messages = await collect(
      query({
        prompt: "delegate please",
        options: bed.options({ sessionStore: store, record: { path: recording } }),
      }),
    );
    const result = results(messages).at(-1);
    expect(result?.isError).toBe(false);
    expect(messages.some((m) => m.type === "unknown")).toBe(false);
    expect(mirrorErrors(messages)).toEqual([]);

    const projectKey = encodeProjectDir(bed.cwd);
    const sessionId = result?.sessionId as string;
    const projectDir = join(configDirOf(bed), "projects", projectKey);
    // Every line but the CLI's local log of API requests (`api-request`, `api-request-blob`, …),
    // which it never mirrors.
    const local = jsonLines(join(projectDir, `${sessionId}.jsonl`));
    expect(local.some(isRequestLog)).toBe(true);
    expect(store.getEntries({ projectKey, sessionId })).toEqual(local.filter((e) => !isRequestLog(e)));

    const subkeys = await store.listSubkeys({ projectKey, sessionId });
    expect(subkeys).toHaveLength(1);
    const subpath = subkeys[0] as string;
    expect(subpath).toMatch(/^subagents\/agent-[0-9a-f]+$/);
    // The CLI mirrors a subagent's metadata file as `agent_metadata` entries of its transcript.
    const sub = store.getEntries({ projectKey, sessionId, subpath });
    expect(sub.filter((e) => e.type !== "agent_metadata")).toEqual(
      jsonLines(join(projectDir, sessionId, `${subpath}.jsonl`)).filter((e) => !isRequestLog(e)),
    );
    const { type, ...meta } = sub.filter((e) => e.type === "agent_metadata").at(-1) as SessionStoreEntry;
    expect(type).toBe("agent_metadata");
    expect(meta).toEqual(
      JSON.parse(readFileSync(join(projectDir, sessionId, `${subpath}.meta.json`), "utf8")),
    );

    // Batched: fewer appends than the CLI sent frames, and entries of one key coalesced.
    const frames = jsonLines(recording).filter(
      (e) => (e as { line?: { type?: string } }).line?.type === "transcript_mirror",
    );
    expect(frames.length).toBeGreaterThan(3);
    expect(store.calls.length).toBeLessThan(frames.length);
  });

  it("eager: one append per frame the CLI sent, in order", async () => {
    await using bed = await testBed([{ text: "eager answer" }]);
    const store = new RecordingStore();
    const recording = join(bed.cwd, "..", `${encodeProjectDir(bed.cwd)}.eager.rec.jsonl`);
    onTestFinished(() => rmSync(recording, { force: true }));
    const messages = await collect(
      query({
        prompt: "hello eager",
        options: bed.options({
          sessionStore: store,
          sessionStoreFlush: "eager",
          record: { path: recording },
        }),
      }),
    );
    expect(results(messages).at(-1)?.isError).toBe(false);
    const frames = jsonLines(recording)
      .map((e) => (e as { line?: { type?: string; entries?: unknown[] } }).line)
      .filter((line) => line?.type === "transcript_mirror");
    expect(store.calls.map((c) => c.count)).toEqual(frames.map((f) => f?.entries?.length));
  });

  it("reports a store that keeps failing as mirror_error after 3 attempts; the turn still completes", async () => {
    await using bed = await testBed([{ text: "answer despite the store" }]);
    let attempts = 0;
    const store: SessionStore = {
      async append() {
        attempts += 1;
        throw new Error("store is down");
      },
      async load() {
        return null;
      },
    };
    const messages = await collect(query({ prompt: "hello", options: bed.options({ sessionStore: store }) }));
    const result = results(messages).at(-1);
    expect(result?.isError).toBe(false);
    expect(result?.result).toBe("answer despite the store");
    const errors = mirrorErrors(messages);
    expect(errors.length).toBeGreaterThan(0);
    expect(attempts).toBe(errors.length * 3);
    const first = errors[0];
    expect(first?.data.error).toMatch(/failed after 3 attempt\(s\): store is down/);
    expect(first?.data.key).toEqual({ projectKey: encodeProjectDir(bed.cwd), sessionId: result?.sessionId });
    expect(first?.data.session_id).toBe(result?.sessionId);
  });

  it("a store that never answers blocks neither the messages nor the end of the query, nor disconnect()", async () => {
    await using bed = await testBed([{ text: "first" }, { text: "second" }]);
    const hanging: SessionStore = {
      append: () => new Promise<void>(() => {}),
      load: async () => null,
    };
    const messages = await collect(
      query({ prompt: "hello", options: bed.options({ sessionStore: hanging }) }),
    );
    expect(results(messages).at(-1)?.result).toBe("first");
    expect(mirrorErrors(messages).at(-1)?.data.error).toMatch(/had not finished/);

    await using client = new AgentSdkClient(bed.options({ sessionStore: hanging }));
    await client.connect();
    const turn = await client.run("again");
    expect(turn.result.result).toBe("second");
    await client.disconnect();
  });

  it("refuses what cannot work with a store before spawning", async () => {
    const store = new InMemorySessionStore();
    const claude = getBackend("claude");
    expect(() => claude.validateOptions({ sessionStore: store, persistSession: false })).toThrow(
      /sessionStore: cannot be combined with persistSession: false/,
    );
    expect(() => claude.validateOptions({ sessionStore: store, enableFileCheckpointing: true })).toThrow(
      /enableFileCheckpointing/,
    );
    const withoutList: SessionStore = { append: (k, e) => store.append(k, e), load: (k) => store.load(k) };
    expect(() => claude.validateOptions({ sessionStore: withoutList, continueConversation: true })).toThrow(
      /store.listSessions/,
    );
    expect(() =>
      claude.validateOptions({
        sessionStore: withoutList,
        continueConversation: true,
        resume: crypto.randomUUID(),
      }),
    ).not.toThrow();
    expect(() => claude.validateOptions({ sessionStore: {} as SessionStore })).toThrow(
      /sessionStore: must be a SessionStore/,
    );
    expect(() =>
      claude.validateOptions({ sessionStore: store, sessionStoreFlush: "later" as never }),
    ).toThrow(/sessionStoreFlush/);
    expect(() => claude.validateOptions({ sessionStore: store, loadTimeoutMs: 0 })).toThrow(/loadTimeoutMs/);
    const codex = await loadBackend("codex");
    expect(() => codex.validateOptions({ sessionStore: store })).toThrow(UnsupportedOptionsError);
  });
});

describe(`resuming from a sessionStore against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("resumes a session the local disk no longer has; the continuation is mirrored under the same key", async () => {
    await using bed = await testBed([
      delegating,
      delegating,
      delegating,
      { text: "you asked me to delegate" },
    ]);
    const store = new RecordingStore();
    const loads: SessionKey[] = [];
    const load = store.load.bind(store);
    store.load = async (key) => {
      loads.push(key);
      return load(key);
    };
    const first = results(
      await collect(query({ prompt: "delegate please", options: bed.options({ sessionStore: store }) })),
    ).at(-1);
    const sessionId = first?.sessionId as string;
    const projectKey = encodeProjectDir(bed.cwd);
    const before = store.getEntries({ projectKey, sessionId });
    // The local copy is gone: only the store has the session now.
    rmSync(join(configDirOf(bed), "projects"), { recursive: true, force: true });

    const messages = await collect(
      query({
        prompt: "what did I ask first?",
        options: bed.options({ sessionStore: store, resume: sessionId }),
      }),
    );
    const result = results(messages).at(-1);
    expect(result?.isError).toBe(false);
    expect(result?.sessionId).toBe(sessionId);
    const sent = sentTexts(bed.model.turnRequests.at(-1));
    expect(sent).toContain("delegate please");
    expect(sent).toContain("Main done.");
    expect(sent).toContain("what did I ask first?");
    // The main transcript and the subagent's were read from the store.
    const subpath = (await store.listSubkeys({ projectKey, sessionId }))[0];
    expect(loads).toEqual([
      { projectKey, sessionId },
      { projectKey, sessionId, subpath },
    ]);
    // What the resumed CLI wrote went to the store, after what was there; the temporary directory is gone.
    const after = store.getEntries({ projectKey, sessionId });
    expect(after.slice(0, before.length)).toEqual(before);
    expect(JSON.stringify(after.slice(before.length))).toContain("what did I ask first?");
    expect(resumeDirsOf(projectKey, sessionId)).toEqual([]);
    expect(mirrorErrors(messages)).toEqual([]);
  });

  it("continueConversation resumes the store's newest session of the project", async () => {
    await using bed = await testBed([{ text: "noted kiwi" }, { text: "noted fig" }, { text: "it was fig" }]);
    const store = new InMemorySessionStore();
    const run = async (prompt: string, extra = {}) =>
      results(await collect(query({ prompt, options: bed.options({ sessionStore: store, ...extra }) }))).at(
        -1,
      );
    await run("remember kiwi");
    const newest = await run("remember fig");
    rmSync(join(configDirOf(bed), "projects"), { recursive: true, force: true });
    const continued = await run("which fruit?", { continueConversation: true });
    expect(continued?.sessionId).toBe(newest?.sessionId);
    const sent = sentTexts(bed.model.turnRequests.at(-1));
    expect(sent).toContain("remember fig");
    expect(sent).not.toContain("remember kiwi");
  });

  it("fails with SessionStoreError when load() exceeds loadTimeoutMs, before anything is spawned", async () => {
    await using bed = await testBed([]);
    const stuck: SessionStore = {
      append: async () => {},
      load: () => new Promise(() => {}),
    };
    const failure = await collect(
      query({
        prompt: "x",
        options: bed.options({ sessionStore: stuck, resume: crypto.randomUUID(), loadTimeoutMs: 50 }),
      }),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SessionStoreError);
    expect(failure).toMatchObject({ operation: "load", timedOut: true });
    expect((failure as Error).message).toMatch(/load\(\) timed out after 50 ms/);
    const broken: SessionStore = {
      append: async () => {},
      load: async () => {
        throw new Error("no such table");
      },
    };
    await expect(
      collect(
        query({ prompt: "x", options: bed.options({ sessionStore: broken, resume: crypto.randomUUID() }) }),
      ),
    ).rejects.toThrow(/SessionStore.load\(\) failed for session .*: no such table/);
    expect(bed.model.requests.length).toBe(0);
  });
});

/** A throw-away Unix user (root only), removed again by `[Symbol.dispose]`. */
function throwAwayUser(): { name: string; uid: number; gid: number; [Symbol.dispose](): void } {
  const name = `casstore${process.pid}`;
  execFileSync("useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", name], { stdio: "ignore" });
  const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim());
  return {
    name,
    uid: id("-u"),
    gid: id("-g"),
    [Symbol.dispose]: () => execFileSync("userdel", [name], { stdio: "ignore" }),
  };
}

describe.skipIf(process.getuid?.() !== 0)(
  `resuming from a sessionStore as another user (root) against claude ${CLAUDE_CLI_VERSION}`,
  () => {
    it("the CLI runs as the user on the handed-over directory, resumes, and the directory goes after", async () => {
      await using bed = await testBed([{ text: "noted kiwi" }, { text: "it was kiwi" }]);
      using user = throwAwayUser();
      const store = new InMemorySessionStore();
      const first = results(
        await collect(query({ prompt: "remember kiwi", options: bed.options({ sessionStore: store }) })),
      ).at(-1);
      const sessionId = first?.sessionId as string;
      // The user's own places: its working directory, home and temporary directory.
      chownSync(bed.cwd, user.uid, user.gid);
      const own = { HOME: bed.cwd, TMPDIR: bed.cwd, CLAUDE_CODE_TMPDIR: bed.cwd };
      const messages = await collect(
        query({
          prompt: "what was it?",
          options: bed.options({
            sessionStore: store,
            resume: sessionId,
            user: user.name,
            env: { ...bed.options().env, ...own },
          }),
        }),
      );
      const result = results(messages).at(-1);
      expect(result?.isError).toBe(false);
      expect(result?.sessionId).toBe(sessionId);
      expect(sentTexts(bed.model.turnRequests.at(-1))).toContain("remember kiwi");
      expect(mirrorErrors(messages)).toEqual([]);
      expect(
        JSON.stringify(store.getEntries({ projectKey: encodeProjectDir(bed.cwd), sessionId })),
      ).toContain("what was it?");
      expect(resumeDirsOf(encodeProjectDir(bed.cwd), sessionId)).toEqual([]);
    });
  },
);
