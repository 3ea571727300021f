/**
 * ACP `session/list` (`listSessions` of `code-agent-sdk/acp`) and `session/fork` (`forkSession`
 * with `resume`) against the stand-in agent (./config-agent.mjs): what goes on the wire, pages
 * followed by cursor up to the limit, untrusted pages read (unknown fields ignored, malformed
 * entries left out, a malformed page a typed error), the typed error where the agent does not
 * declare the capability, and the agent's process gone after every call: also when it exits
 * mid-list, never answers (bounded by controlTimeoutMs) or the caller aborts.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AcpListSessionsOptions,
  listSessions,
  MAX_ACP_LIST_PAGES,
  MessageParseError,
} from "../../../src/backends/acp/index.js";
import {
  AbortError,
  ControlRequestError,
  ControlTimeoutError,
  InvalidOptionsError,
  type Message,
  ProcessError,
  query,
  UnsupportedFeatureError,
} from "../../../src/index.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";

const AGENT = fileURLToPath(new URL("./config-agent.mjs", import.meta.url));
let dir: string;
let agent: string;
let runs = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cas-acp-list-"));
  agent = join(dir, "config-agent");
  writeFileSync(agent, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(AGENT).href)});\n`);
  chmodSync(agent, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  expect(liveGroupCount()).toBe(0);
});

interface Profile {
  caps?: Record<string, unknown>;
  session?: Record<string, unknown>;
  listPages?: unknown[];
  listHangs?: boolean;
  listExitsAt?: number;
  forkResult?: unknown;
}

type Recorded = { method: string; params: Record<string, unknown> }[];

/** A run of the stand-in: its options, and the requests it recorded. */
function run(
  profile: Profile,
  { record: recording = true } = {},
): { cwd: string; env: Record<string, string>; requests: () => Recorded } {
  const cwd = join(dir, `run-${++runs}`);
  mkdirSync(cwd);
  const record = join(cwd, "record.json");
  return {
    cwd,
    env: {
      CONFIG_AGENT_PROFILE: JSON.stringify(profile),
      ...(recording ? { CONFIG_AGENT_RECORD: record } : {}),
    },
    requests: () => JSON.parse(readFileSync(record, "utf8")) as Recorded,
  };
}

function listing(
  profile: Profile,
  extra: Partial<AcpListSessionsOptions> = {},
  recording = true,
): { options: AcpListSessionsOptions; requests: () => Recorded } {
  const r = run(profile, { record: recording });
  return {
    options: { acp: { command: agent }, cwd: r.cwd, env: r.env, inheritEnv: false, ...extra },
    requests: r.requests,
  };
}

const LISTS = { sessionCapabilities: { list: {} } };
const session = (n: number) => ({ sessionId: `s-${n}`, cwd: `/work/p${n}` });

describe("listSessions (session/list)", () => {
  it("follows the cursors to the end and returns every page's sessions in order", async () => {
    const t = listing({
      caps: LISTS,
      listPages: [
        {
          sessions: [
            {
              ...session(1),
              title: "first",
              updatedAt: "2026-11-26T10:00:00Z",
              _meta: { x: 1 },
              extra: true,
            },
            session(2),
          ],
          nextCursor: "page-1",
        },
        { sessions: [session(3)], nextCursor: "page-2" },
        { sessions: [session(4)], nextCursor: null },
      ],
    });
    const sessions = await listSessions(t.options);
    expect(sessions).toEqual([
      { sessionId: "s-1", cwd: "/work/p1", title: "first", updatedAt: "2026-11-26T10:00:00Z" },
      { sessionId: "s-2", cwd: "/work/p2" },
      { sessionId: "s-3", cwd: "/work/p3" },
      { sessionId: "s-4", cwd: "/work/p4" },
    ]);
    const sent = t.requests().map((r) => [r.method, r.params]);
    expect(sent.map(([m]) => m)).toEqual(["initialize", "session/list", "session/list", "session/list"]);
    expect(sent.slice(1).map(([, p]) => p)).toEqual([{}, { cursor: "page-1" }, { cursor: "page-2" }]);
  });

  it("stops at the limit (no further page requested) and passes dir as the cwd filter", async () => {
    const t = listing(
      {
        caps: LISTS,
        listPages: [
          { sessions: [session(1), session(2)], nextCursor: "page-1" },
          { sessions: [session(3), session(4)], nextCursor: "page-2" },
          { sessions: [session(5)] },
        ],
      },
      { dir: "/work/p", limit: 3 },
    );
    expect((await listSessions(t.options)).map((s) => s.sessionId)).toEqual(["s-1", "s-2", "s-3"]);
    const lists = t.requests().filter((r) => r.method === "session/list");
    expect(lists.map((r) => r.params)).toEqual([{ cwd: "/work/p" }, { cwd: "/work/p", cursor: "page-1" }]);
  });

  it("leaves out malformed entries and ignores wrong-typed optional fields", async () => {
    const t = listing({
      caps: LISTS,
      listPages: [
        {
          sessions: [
            null,
            "s-0",
            { sessionId: 7, cwd: "/w" },
            { sessionId: "", cwd: "/w" },
            { sessionId: "no-cwd" },
            { ...session(1), title: 42, updatedAt: { at: 1 } },
            { ...session(2), title: null, updatedAt: null },
          ],
        },
      ],
    });
    expect(await listSessions(t.options)).toEqual([
      { sessionId: "s-1", cwd: "/work/p1" },
      { sessionId: "s-2", cwd: "/work/p2" },
    ]);
  });

  it.each([
    ["no sessions array", { nextCursor: "page-1" }],
    ["sessions not an array", { sessions: { 0: {} } }],
    ["a nextCursor that is not a string", { sessions: [session(2)], nextCursor: 2 }],
  ])("a malformed page (%s) is a MessageParseError, and the agent is stopped", async (_what, page) => {
    const t = listing({
      caps: LISTS,
      listPages: [{ sessions: [session(1)], nextCursor: "page-1" }, page],
    });
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageParseError);
    expect(String((error as Error).message)).toContain("config-agent answered session/list");
  });

  it("a page that hands back the cursor it was asked for fails instead of looping", async () => {
    const t = listing({
      caps: LISTS,
      listPages: [
        { sessions: [session(1)], nextCursor: "page-1" },
        { sessions: [session(2)], nextCursor: "page-1" },
      ],
    });
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageParseError);
    expect(String((error as Error).message)).toContain("never end");
    expect(t.requests().filter((r) => r.method === "session/list")).toHaveLength(2);
  });

  it(`a list that never ends stops after ${MAX_ACP_LIST_PAGES} pages`, { timeout: 60_000 }, async () => {
    const pages = Array.from({ length: MAX_ACP_LIST_PAGES + 1 }, (_, i) => ({
      sessions: [],
      nextCursor: `page-${i + 1}`,
    }));
    // Not recorded: the stand-in would rewrite a growing record a thousand times.
    const t = listing({ caps: LISTS, listPages: pages }, {}, false);
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageParseError);
    expect(String((error as Error).message)).toContain(`more than ${MAX_ACP_LIST_PAGES} pages`);
  });

  it("an agent that does not declare sessionCapabilities.list: UnsupportedFeatureError, nothing listed", async () => {
    const t = listing({ caps: { sessionCapabilities: { resume: {} } } });
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).feature).toContain("sessionCapabilities.list");
    expect((error as UnsupportedFeatureError).backend).toBe("acp (config-agent)");
    expect(t.requests().map((r) => r.method)).toEqual(["initialize"]);
  });

  it("an error answer is a ControlRequestError", async () => {
    // Page 1 does not exist: the stand-in answers -32602.
    const t = listing({ caps: LISTS, listPages: [{ sessions: [session(1)], nextCursor: "page-1" }] });
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlRequestError);
    expect((error as ControlRequestError).subtype).toBe("session/list");
  });

  it("the agent exiting mid-list is a ProcessError naming session/list", async () => {
    const t = listing({
      caps: LISTS,
      listPages: [{ sessions: [session(1)], nextCursor: "page-1" }],
      listExitsAt: 1,
    });
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessError);
    expect(String((error as Error).message)).toContain('before answering "session/list"');
  });

  it("a list that is never answered is bounded by controlTimeoutMs", { timeout: 60_000 }, async () => {
    // The bound covers initialize too, and so the agent's start: long enough for a loaded machine.
    const bound = 5_000;
    let asked = false;
    const t = listing(
      { caps: LISTS, listHangs: true },
      {
        controlTimeoutMs: bound,
        stderr: (line) => {
          if (line.startsWith("list-requested")) asked = true;
        },
      },
    );
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlTimeoutError);
    expect((error as ControlTimeoutError).subtype).toBe("session/list");
    expect((error as ControlTimeoutError).timeoutMs).toBe(bound);
    // The agent had the request (the bound ran out on it, not on the agent's start).
    expect(asked).toBe(true);
  });

  it("abort while a page is pending: AbortError, the agent stopped", async () => {
    const controller = new AbortController();
    const t = listing(
      { caps: LISTS, listHangs: true },
      {
        signal: controller.signal,
        // The stand-in says when it got the request: abort then.
        stderr: (line) => {
          if (line.startsWith("list-requested")) controller.abort();
        },
      },
    );
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(t.requests().at(-1)?.method).toBe("session/list");
  });

  it("an already aborted signal: AbortError before anything starts", async () => {
    const t = listing({ caps: LISTS }, { signal: AbortSignal.abort() });
    await expect(listSessions(t.options)).rejects.toBeInstanceOf(AbortError);
  });

  it.each([
    ["a relative dir", { dir: "work/p" }, "dir:"],
    ["a limit of 0", { limit: 0 }, "limit:"],
    ["a fractional limit", { limit: 1.5 }, "limit:"],
    ["an option of query() it does not take", { resume: "s-1" }, "resume: not an option of listSessions"],
    ["a signal that is not an AbortSignal", { signal: {} }, "signal:"],
  ])("refuses %s with InvalidOptionsError before starting anything", async (_what, extra, issue) => {
    const t = listing({ caps: LISTS }, extra as Partial<AcpListSessionsOptions>);
    const error = await listSessions(t.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(String((error as Error).message)).toContain(issue);
  });

  it("refuses options naming no agent", async () => {
    await expect(listSessions({} as AcpListSessionsOptions)).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});

/** Every message of a one-turn query. */
async function collect(options: Parameters<typeof query>[0]["options"]): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const m of query({ prompt: "hi", options })) messages.push(m);
  return messages;
}

describe("forkSession with resume (session/fork)", () => {
  it("sends session/fork (not load) and the new session id is the init's and the result's", async () => {
    const r = run({ caps: { sessionCapabilities: { fork: {}, list: {} } } });
    const messages = await collect({
      backend: "acp",
      acp: { command: agent },
      cwd: r.cwd,
      env: r.env,
      inheritEnv: false,
      resume: "earlier",
      forkSession: true,
    });
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    const result = messages.find((m) => m.type === "result");
    expect(init?.sessionId).toBe("forked-from-earlier");
    expect((init as { data?: Record<string, unknown> }).data).toMatchObject({
      resumed: true,
      forkedFrom: "earlier",
    });
    expect(result?.sessionId).toBe("forked-from-earlier");
    expect(result && "isError" in result && result.isError).toBe(false);
    const sent = r.requests().map((q) => q.method);
    expect(sent).toEqual(["initialize", "session/fork", "session/prompt"]);
    expect(r.requests()[1]?.params).toMatchObject({ sessionId: "earlier", cwd: r.cwd, mcpServers: [] });
  });

  it("an agent without sessionCapabilities.fork: UnsupportedFeatureError, no session made, the agent stopped", async () => {
    const r = run({ caps: { sessionCapabilities: { resume: {}, list: {} } } });
    const error = await collect({
      backend: "acp",
      acp: { command: agent },
      cwd: r.cwd,
      env: r.env,
      inheritEnv: false,
      resume: "earlier",
      forkSession: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).feature).toContain("sessionCapabilities.fork");
    expect((error as UnsupportedFeatureError).backend).toBe("acp (config-agent)");
    expect(r.requests().map((q) => q.method)).toEqual(["initialize"]);
  });

  it("a session/fork answer without a session id is a MessageParseError", async () => {
    const r = run({ caps: { sessionCapabilities: { fork: {} } }, forkResult: { modes: null } });
    const error = await collect({
      backend: "acp",
      acp: { command: agent },
      cwd: r.cwd,
      env: r.env,
      inheritEnv: false,
      resume: "earlier",
      forkSession: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageParseError);
    expect(String((error as Error).message)).toContain("session/fork without a session id");
  });

  it("forkSession without resume is a new session (nothing to fork)", async () => {
    const r = run({ caps: { sessionCapabilities: { fork: {} } } });
    await collect({
      backend: "acp",
      acp: { command: agent },
      cwd: r.cwd,
      env: r.env,
      inheritEnv: false,
      forkSession: true,
    });
    expect(r.requests().map((q) => q.method)).toEqual(["initialize", "session/new", "session/prompt"]);
  });
});
