/**
 * How a session is listed by its first prompt (`firstPrompt`, and `summary` when nothing else
 * titles it), ours and the official SDK 0.3.330's `listSessions` side by side on transcripts made
 * for each edge: a long prompt, a `!` shell input, a slash command, several text blocks, an
 * image alone, whitespace and newlines, a tool result before the prompt.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, expect, it } from "vitest";
import { encodeProjectDir, listSessions } from "../../../src/backends/claude/index.js";

const PROJECT = "/tmp/cas-first-prompt-project";
const savedConfigDir = process.env.CLAUDE_CONFIG_DIR;
let configDir: string;

/** Each case's first user content; a second entry holds the answer. */
const CASES: Record<string, unknown> = {
  long: `${"x".repeat(250)} tail`,
  surrogateAtCut: `${"y".repeat(199)}😀 and more`,
  bashInput: "<bash-input>ls -la</bash-input>",
  slashCommand: "<command-name>/review</command-name>\n<command-message>review</command-message>",
  textBlocks: [
    { type: "text", text: "hello" },
    { type: "text", text: "world" },
  ],
  imageAlone: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }],
  whitespace: "  line1\n\n  line2  ",
  interrupted: "[Request interrupted by user]",
  reminderFirst: [
    { type: "text", text: "<system-reminder>be nice</system-reminder>" },
    { type: "text", text: "the real prompt" },
  ],
};

const ids = new Map<string, string>();

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), "cas-first-prompt-"));
  process.env.CLAUDE_CONFIG_DIR = configDir; // The official helpers read the store named here.
  const projectDir = join(configDir, "projects", encodeProjectDir(PROJECT));
  mkdirSync(projectDir, { recursive: true });
  Object.entries(CASES).forEach(([name, content], i) => {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    ids.set(id, name);
    const common = {
      sessionId: id,
      cwd: PROJECT,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      isSidechain: false,
    };
    const lines = [
      { ...common, type: "user", uuid: `u${i}`, parentUuid: null, message: { role: "user", content } },
      {
        ...common,
        type: "assistant",
        uuid: `a${i}`,
        parentUuid: `u${i}`,
        message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
      },
    ];
    writeFileSync(
      join(projectDir, `${id}.jsonl`),
      `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
    );
  });
});

afterAll(() => {
  if (savedConfigDir === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = savedConfigDir;
  rmSync(configDir, { recursive: true, force: true });
});

it("firstPrompt and summary match the official SDK's for every case", async () => {
  const view = (list: { sessionId: string; firstPrompt?: string | undefined; summary: string }[]) =>
    Object.fromEntries(
      list.map((s) => [ids.get(s.sessionId), { firstPrompt: s.firstPrompt, summary: s.summary }]),
    );
  const theirs = view(await official.listSessions({ dir: PROJECT }));
  const ours = view(await listSessions({ dir: PROJECT }));
  // A session whose only "prompt" is the CLI's interruption note has nothing to be listed by.
  const listed = Object.keys(CASES).filter((name) => name !== "interrupted");
  expect(Object.keys(theirs).sort()).toEqual(listed.sort());
  expect(ours).toEqual(theirs);
  // The cases say what they are about.
  expect(ours.long?.firstPrompt).toMatch(/^x{200}…$/);
  expect(ours.bashInput?.firstPrompt).toBe("! ls -la");
  expect(ours.slashCommand?.firstPrompt).toBe("/review");
  expect(ours.imageAlone).toEqual({ firstPrompt: undefined, summary: "Image" });
});
