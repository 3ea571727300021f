/**
 * archiveSession / unarchiveSession and the `archived` field, on a store claude 2.1.330 wrote
 * (test/fixtures/claude/sessions/store), checked against the official SDK's helpers reading and
 * writing the same files.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import {
  archiveSession,
  encodeProjectDir,
  getSessionInfo,
  listSessions,
  unarchiveSession,
} from "../../../src/backends/claude/index.js";
import { InvalidOptionsError, SessionNotFoundError } from "../../../src/index.js";
import { PROJECT, RENAMED_SESSION, SUBAGENT_SESSION, useFixtureConfigDir } from "./session-fixture.js";

const SESSION = RENAMED_SESSION;
const OTHER = SUBAGENT_SESSION;

let configDir: string;
useFixtureConfigDir("cas-archive-unit-", (copy) => {
  configDir = copy;
});

const transcript = () => join(configDir, "projects", encodeProjectDir(PROJECT), `${SESSION}.jsonl`);

async function bothSay(id: string): Promise<boolean | undefined> {
  const ours = await getSessionInfo(id, { configDir });
  expect(ours).toEqual(await official.getSessionInfo(id));
  return ours?.archived;
}

/** Appends a copy of the transcript's first prompt entry, `later` ms after now, changed by `patch`. */
function appendPrompt(patch: Record<string, unknown>): void {
  const lines = readFileSync(transcript(), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const prompt = lines.find((e) => e.type === "user" && typeof e.message?.content === "string");
  const entry = {
    ...prompt,
    uuid: randomUUID(),
    timestamp: new Date(Date.now() + 5000).toISOString(),
    ...patch,
  };
  appendFileSync(transcript(), `${JSON.stringify(entry)}\n`);
}

describe("archiving sessions, against the official SDK", () => {
  it("marks a session archived and unarchived, each SDK reading what the other wrote", async () => {
    expect(await bothSay(SESSION)).toBeUndefined();
    await archiveSession(SESSION, { configDir });
    expect(await bothSay(SESSION)).toBe(true);
    expect(await bothSay(OTHER)).toBeUndefined();
    const ours = await listSessions({ configDir });
    expect(ours).toEqual(await official.listSessions());
    expect(ours.find((s) => s.sessionId === SESSION)?.archived).toBe(true);

    const mark = join(configDir, "projects", encodeProjectDir(PROJECT), SESSION, "archived.json");
    expect(JSON.parse(readFileSync(mark, "utf8"))).toMatchObject({ archived: true, by: "sdk" });
    expect(statSync(mark).mode & 0o777).toBe(0o600);

    await official.unarchiveSession(SESSION);
    expect(await bothSay(SESSION)).toBe(false);
    await official.archiveSession(SESSION);
    expect(await bothSay(SESSION)).toBe(true);
    await unarchiveSession(SESSION, { configDir, dir: PROJECT });
    expect(await bothSay(SESSION)).toBe(false);
  });

  it("counts a prompt sent later as unarchiving, but not tool results, meta entries or markup", async () => {
    await archiveSession(SESSION, { configDir });
    appendPrompt({
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "ok" }] },
    });
    expect(await bothSay(SESSION)).toBe(true);
    appendPrompt({ isMeta: true });
    expect(await bothSay(SESSION)).toBe(true);
    appendPrompt({ message: { role: "user", content: "<system-reminder>note</system-reminder>" } });
    expect(await bothSay(SESSION)).toBe(true);
    appendPrompt({ origin: { kind: "task-notification" } });
    expect(await bothSay(SESSION)).toBe(true);
    appendPrompt({ message: { role: "user", content: "a new question" } });
    expect(await bothSay(SESSION)).toBe(false);
  });

  it("throws for an unknown session and for a sessionStore, like the official SDK", async () => {
    const unknown = randomUUID();
    await expect(archiveSession(unknown, { configDir })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(official.archiveSession(unknown)).rejects.toThrow(/not found/);
    await expect(unarchiveSession(unknown, { configDir, dir: PROJECT })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    const store = { append: async () => {}, load: async () => null };
    await expect(archiveSession(SESSION, { configDir, sessionStore: store })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
    await expect(
      official.archiveSession(SESSION, { sessionStore: new official.InMemorySessionStore() }),
    ).rejects.toThrow(/sessionStore/);
    await expect(archiveSession("../x", { configDir })).rejects.toBeInstanceOf(InvalidOptionsError);
    expect(await bothSay(SESSION)).toBeUndefined();
  });
});
