/**
 * Shared set-up for the Cursor end-to-end tests. No real `cursor-agent` can be installed here, so
 * they drive the stand-in `test/fixtures/cursor/fake-cursor-agent.mjs`, which follows the
 * documented argv and event shapes (see its README): "verified against documented shapes, not the
 * binary".
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CursorAgentOptions } from "../../src/index.js";

export const FAKE_CURSOR = fileURLToPath(
  new URL("../fixtures/cursor/fake-cursor-agent.mjs", import.meta.url),
);

/** The version the stand-in reports; the shapes it emits are those documented up to 2026.02. */
export const FAKE_CURSOR_VERSION = "2025.11.25-d5b3271";

/** One invocation of the stand-in, as it recorded itself. */
export interface Invocation {
  pid: number;
  argv: string[];
  cwd: string;
  apiKey: string | null;
  stdin: string;
}

/** A scratch home, workspace and invocation log; dispose with `await using`. */
export interface CursorBed extends AsyncDisposable {
  home: string;
  cwd: string;
  /** Options that run the stand-in in the scratch workspace, with an API key from `cursor.apiKey`. */
  options(extra?: Partial<CursorAgentOptions>): CursorAgentOptions;
  /** Every invocation so far, in order. */
  invocations(): Invocation[];
  /** Lets a `GATE` turn finish. */
  openGate(): void;
}

export function cursorBed(): CursorBed {
  const root = mkdtempSync(join(tmpdir(), "cas-cursor-"));
  const home = join(root, "home");
  const cwd = join(root, "workspace");
  mkdirSync(home);
  mkdirSync(cwd);
  const record = join(root, "invocations.jsonl");
  const gate = join(root, "gate");
  return {
    home,
    cwd,
    options: (extra = {}) => ({
      backend: "cursor",
      cliPath: FAKE_CURSOR,
      cwd,
      ...extra,
      env: { HOME: home, FAKE_CURSOR_RECORD: record, FAKE_CURSOR_GATE: gate, ...extra.env },
      cursor: { apiKey: "sk-cursor-test", ...extra.cursor },
    }),
    invocations: () =>
      existsSync(record)
        ? readFileSync(record, "utf8")
            .split("\n")
            .filter((line) => line.length > 0)
            .map((line) => JSON.parse(line) as Invocation)
        : [],
    openGate: () => writeFileSync(gate, ""),
    async [Symbol.asyncDispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The value after `flag` in an argv, if present. */
export function flagValue(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index >= 0 ? argv[index + 1] : undefined;
}

/** The prompt of an invocation: everything after `--`. */
export function promptOf(invocation: Invocation): string {
  return invocation.argv.slice(invocation.argv.indexOf("--") + 1).join(" ");
}
