/**
 * The session helpers on a session that does not exist, side by side with
 * `@anthropic-ai/claude-agent-sdk` 0.3.330: the same outcome (an error, `undefined`, `[]`), and each
 * of our messages begins with the official one word for word (ours adds the folder searched), so
 * callers matching the official text keep working. Ours stay `SessionNotFoundError`s.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as compat from "../../src/compat/claude-agent-sdk/index.js";
import { SessionNotFoundError } from "../../src/errors.js";

const MISSING = "0b6a3f57-3f0e-4f50-8a52-3d6c4d1e9a11";
let home: string;
let saved: string | undefined;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "compat-session-errors-"));
  mkdirSync(join(home, "projects", "-tmp-elsewhere"), { recursive: true });
  saved = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = home;
});
afterAll(() => {
  if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = saved;
  rmSync(home, { recursive: true, force: true });
});

type Helper = (sdk: typeof compat, options: { dir?: string }) => Promise<unknown>;
const HELPERS: Record<string, Helper> = {
  deleteSession: (sdk, o) => sdk.deleteSession(MISSING, o),
  forkSession: (sdk, o) => sdk.forkSession(MISSING, o),
  renameSession: (sdk, o) => sdk.renameSession(MISSING, "title", o),
  tagSession: (sdk, o) => sdk.tagSession(MISSING, "tag", o),
  archiveSession: (sdk, o) => sdk.archiveSession(MISSING, o),
  unarchiveSession: (sdk, o) => sdk.unarchiveSession(MISSING, o),
  getSessionInfo: (sdk, o) => sdk.getSessionInfo(MISSING, o),
  getSessionMessages: (sdk, o) => sdk.getSessionMessages(MISSING, o),
};

async function outcome(helper: Helper, sdk: typeof compat, options: { dir?: string }) {
  try {
    return { value: await helper(sdk, options) };
  } catch (error) {
    return { error: error as Error };
  }
}

describe("compat/claude-agent-sdk session helpers on a missing session, as the official ones", () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    for (const options of [{}, { dir: "/tmp/nowhere-project" }]) {
      it(`${name}(${JSON.stringify(options)})`, async () => {
        const theirs = await outcome(helper, official as unknown as typeof compat, options);
        const mine = await outcome(helper, compat, options);
        if (theirs.error === undefined) {
          expect(mine).toEqual(theirs);
          return;
        }
        expect(mine.error).toBeInstanceOf(SessionNotFoundError);
        expect(theirs.error.message).toContain(MISSING);
        expect(mine.error?.message.startsWith(theirs.error.message)).toBe(true);
      });
    }
  }
});
