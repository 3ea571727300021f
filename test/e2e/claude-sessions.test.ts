/**
 * Session helpers against what the real Claude Code CLI (2.1.330) writes, offline: sessions are
 * created by the CLI, read, renamed, tagged, forked and deleted by the helpers, and resumed by the
 * CLI again afterwards.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  archiveSession,
  deleteSession,
  encodeProjectDir,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  listSessions,
  listSubagents,
  renameSession,
  tagSession,
  unarchiveSession,
} from "../../src/backends/claude/index.js";
import { AgentSdkClient, query, SessionNotFoundError, textOf } from "../../src/index.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import { type Bed, CLAUDE_CLI_VERSION, collect, delegatingTurn, results, testBed } from "./support.js";

/** Runs one one-shot turn and returns its session id. */
async function run(bed: Bed, prompt: string, resume?: string): Promise<string> {
  const messages = await collect(
    query({ prompt, options: bed.options(resume === undefined ? {} : { resume }) }),
  );
  const result = results(messages).at(-1);
  expect(result?.isError).toBe(false);
  return result?.sessionId as string;
}

function configDirOf(bed: Bed): string {
  return bed.options().env?.CLAUDE_CONFIG_DIR as string;
}

/** Every text the model was sent in a request's messages. */
function sentTexts(request: RecordedRequest): string {
  return JSON.stringify((request.body as { messages?: unknown }).messages ?? []);
}

describe(`session helpers against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("lists and reads sessions the CLI wrote, a subagent's transcript included, then deletes one", async () => {
    const route = delegatingTurn({ "second prompt": "second answer" });
    await using bed = await testBed([route, route, route, route]);
    const configDir = configDirOf(bed);
    const first = await run(bed, "delegate please");
    const second = await run(bed, "second prompt");

    const all = await listSessions({ configDir });
    expect(all.map((s) => s.sessionId).sort()).toEqual([first, second].sort());
    expect(all[0]?.lastModified).toBeGreaterThanOrEqual(all[1]?.lastModified as number);
    const info = all.find((s) => s.sessionId === first);
    expect(info).toMatchObject({ summary: "delegate please", firstPrompt: "delegate please", cwd: bed.cwd });
    expect(info?.fileSize).toBeGreaterThan(0);
    expect(info?.createdAt).toBeLessThanOrEqual(info?.lastModified as number);
    expect(await listSessions({ configDir, dir: bed.cwd })).toHaveLength(2);
    expect(await listSessions({ configDir, dir: join(bed.cwd, "elsewhere") })).toEqual([]);
    expect(await listSessions({ configDir, limit: 1, offset: 1 })).toEqual([all[1]]);
    // Sessions started through an SDK are programmatic.
    expect(await listSessions({ configDir, includeProgrammatic: false })).toEqual([]);
    expect(await getSessionInfo(second, { configDir, dir: bed.cwd })).toMatchObject({
      summary: "second prompt",
    });

    const messages = await getSessionMessages(first, { configDir });
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages[0]?.content).toBe("delegate please");
    const call = (messages[1]?.content as { type: string; id?: string; name?: string }[] | undefined)?.[0];
    expect(call).toMatchObject({ type: "tool_use" });
    expect(messages[3]?.content).toEqual([{ type: "text", text: "Main done." }]);
    expect(messages.every((m) => m.sessionId === first && m.parentToolUseId === null)).toBe(true);
    expect(await getSessionMessages(first, { configDir, offset: 1, limit: 2 })).toEqual(messages.slice(1, 3));

    const agents = await listSubagents(first, { configDir });
    expect(agents).toHaveLength(1);
    const sub = await getSubagentMessages(first, agents[0] as string, { configDir });
    expect(
      sub.map((m) => [m.type, typeof m.content === "string" ? m.content : textOfBlocks(m.content)]),
    ).toEqual([
      ["user", "Say hi from the subagent"],
      ["assistant", "hi from subagent"],
    ]);
    expect(sub.every((m) => m.parentToolUseId === call?.id && m.parentAgentId === null)).toBe(true);
    expect(await listSubagents(second, { configDir })).toEqual([]);

    await deleteSession(first, { configDir, dir: bed.cwd });
    expect((await listSessions({ configDir })).map((s) => s.sessionId)).toEqual([second]);
    expect(await getSessionMessages(first, { configDir })).toEqual([]);
    expect(await listSubagents(first, { configDir })).toEqual([]);
    await expect(deleteSession(first, { configDir })).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it("renames and tags a session; the CLI resumes it, and its own rename is read the same way", async () => {
    await using bed = await testBed([{ text: "noted" }, { text: "it was apple" }]);
    const configDir = configDirOf(bed);
    const id = await run(bed, "remember the word apple");

    await renameSession(id, "  Fruit memory  ", { configDir });
    await tagSession(id, "urgent", { configDir });
    expect(await getSessionInfo(id, { configDir })).toMatchObject({
      summary: "Fruit memory",
      customTitle: "Fruit memory",
      tag: "urgent",
      firstPrompt: "remember the word apple",
    });

    // The CLI reads the file with our entries in it: the resumed turn sees the first one.
    expect(await run(bed, "which word?", id)).toBe(id);
    expect(sentTexts(bed.model.turnRequests.at(-1) as RecordedRequest)).toContain("remember the word apple");
    expect(await getSessionInfo(id, { configDir })).toMatchObject({
      customTitle: "Fruit memory",
      tag: "urgent",
    });
    const texts = (await getSessionMessages(id, { configDir })).map((m) =>
      typeof m.content === "string" ? m.content : textOfBlocks(m.content),
    );
    expect(texts).toEqual(["remember the word apple", "noted", "which word?", "it was apple"]);

    await tagSession(id, null, { configDir });
    expect((await getSessionInfo(id, { configDir }))?.tag).toBeUndefined();

    // The CLI's own rename (the control request behind `/rename`) is the same entry.
    bed.model.push({ text: "unused" });
    await using client = new AgentSdkClient(bed.options({ resume: id }));
    await client.connect();
    await client.controlRequest({ subtype: "rename_session", title: "Renamed by the CLI" });
    await client.disconnect();
    expect(await getSessionInfo(id, { configDir })).toMatchObject({ customTitle: "Renamed by the CLI" });

    await expect(renameSession(id, "   ", { configDir })).rejects.toThrow(/title/);
    await expect(tagSession(crypto.randomUUID(), "x", { configDir })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("archives a session; a prompt the CLI writes in it later unarchives it", async () => {
    await using bed = await testBed([{ text: "noted" }, { text: "back again" }]);
    const configDir = configDirOf(bed);
    const id = await run(bed, "remember the word plum");
    await archiveSession(id, { configDir, dir: bed.cwd });
    expect((await getSessionInfo(id, { configDir }))?.archived).toBe(true);
    await unarchiveSession(id, { configDir });
    expect((await getSessionInfo(id, { configDir }))?.archived).toBe(false);
    await archiveSession(id, { configDir });
    expect((await listSessions({ configDir }))[0]).toMatchObject({ sessionId: id, archived: true });
    // The resumed prompt's entry is written by a CLI started after the mark: strictly later.
    expect(await run(bed, "and now?", id)).toBe(id);
    expect((await getSessionInfo(id, { configDir }))?.archived).toBe(false);
    // The CLI itself rewrites the mark when a prompt arrives in an archived session.
    const mark = join(configDir, "projects", encodeProjectDir(bed.cwd), id, "archived.json");
    expect(JSON.parse(readFileSync(mark, "utf8"))).toMatchObject({ archived: false, by: "cli" });
    // And the CLI's own mark is read the same way: archiving again holds until the next prompt.
    await archiveSession(id, { configDir });
    expect((await getSessionInfo(id, { configDir }))?.archived).toBe(true);
  });

  it("forks a session whole and up to a message; the CLI resumes the fork and the source is untouched", async () => {
    await using bed = await testBed([
      { text: "noted banana" },
      { text: "noted cherry" },
      { text: "you told me banana" },
    ]);
    const configDir = configDirOf(bed);
    const id = await run(bed, "first fact: banana");
    await run(bed, "second fact: cherry", id);
    const source = join(configDir, "projects", encodeProjectDir(bed.cwd), `${id}.jsonl`);
    const before = readFileSync(source, "utf8");
    const original = await getSessionMessages(id, { configDir });
    expect(original).toHaveLength(4);

    const whole = await forkSession(id, { configDir });
    expect(whole.sessionId).not.toBe(id);
    const copied = await getSessionMessages(whole.sessionId, { configDir });
    expect(copied.map((m) => m.content)).toEqual(original.map((m) => m.content));
    expect(copied.every((m) => m.sessionId === whole.sessionId)).toBe(true);
    expect(copied.some((m) => original.some((o) => o.uuid === m.uuid))).toBe(false);
    expect(await getSessionInfo(whole.sessionId, { configDir })).toMatchObject({
      customTitle: "first fact: banana (fork)",
    });

    const upTo = original[1]?.uuid as string;
    const partial = await forkSession(id, {
      configDir,
      dir: bed.cwd,
      upToMessageId: upTo,
      title: "Banana only",
    });
    expect((await getSessionMessages(partial.sessionId, { configDir })).map((m) => m.content)).toEqual(
      original.slice(0, 2).map((m) => m.content),
    );

    // Resuming the partial fork continues from its copy: the second fact is not in the request.
    expect(await run(bed, "what was the first fact?", partial.sessionId)).toBe(partial.sessionId);
    const sent = sentTexts(bed.model.turnRequests.at(-1) as RecordedRequest);
    expect(sent).toContain("first fact: banana");
    expect(sent).not.toContain("second fact: cherry");
    const continued = await getSessionMessages(partial.sessionId, { configDir });
    expect(continued).toHaveLength(4);
    expect(continued.at(-1)?.content).toEqual([{ type: "text", text: "you told me banana" }]);
    expect(await getSessionInfo(partial.sessionId, { configDir })).toMatchObject({
      customTitle: "Banana only",
    });

    expect(readFileSync(source, "utf8")).toBe(before);
    await expect(forkSession(id, { configDir, upToMessageId: crypto.randomUUID() })).rejects.toThrow(
      /upToMessageId/,
    );
  });
});

function textOfBlocks(blocks: readonly { type: string }[]): string {
  return textOf({ type: "user", content: blocks as never, parentToolUseId: null, raw: {} });
}

describe(`resuming a session claude ${CLAUDE_CLI_VERSION} does not have`, () => {
  it("the CLI's error result (error_during_execution, 'No conversation found') is yielded; the query ends, the model never asked", async () => {
    await using bed = await testBed([{ text: "never asked" }]);
    const missing = "0b6f1a4e-2b7c-4c1e-9a58-7d9f3c2e1a00";
    const messages = await collect(query({ prompt: "hi", options: bed.options({ resume: missing }) }));
    expect(messages.map((m) => m.type)).toEqual(["result"]);
    expect(messages[0]).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      isError: true,
      errors: [`No conversation found with session ID: ${missing}`],
    });
    expect(bed.model.requests).toHaveLength(0);
  });
});
