/**
 * The plain options (`src/options/plain.ts`) are checked without zod on a query's cold path; the
 * options schema stays the reference. Every plain check must accept exactly what the schema
 * accepts for its option (looser would let invalid options through; stricter only costs the
 * schema's load), and a backend's validation of plain options must not load the schema.
 */
import { describe, expect, it } from "vitest";
import { optionSchemaNeeded } from "../../../src/options/check.js";
import { PLAIN_OPTION_CHECKS, plainOptionsValid } from "../../../src/options/plain.js";
import { agentOptionsIssues } from "../../../src/options-schema.js";

const UUID = "8755d035-1a79-4e28-8225-2d0348cf8fea";
const CORPUS: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "-x",
  "--flag",
  " padded ",
  UUID,
  "claude",
  "codex",
  "cursor",
  "acp",
  "other",
  "default",
  "acceptEdits",
  "bypassPermissions",
  "plan",
  "dontAsk",
  "auto",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
  "host",
  "none",
  "every-call",
  "asked-calls",
  0,
  1,
  -1,
  1.5,
  1023,
  1024,
  65536,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  true,
  false,
  {},
  [],
  ["Read"],
  ["Read", "Bash(git:*)"],
  ["-x"],
  [""],
  [1],
  () => undefined,
  new AbortController().signal,
  { aborted: false },
  Symbol("s"),
  10n,
  { connect() {}, write() {}, readMessages() {}, endInput() {}, close() {}, isReady() {} },
  { connect() {}, write() {}, readMessages() {}, endInput() {}, close() {} },
];

describe("plain options", () => {
  it("each plain check accepts exactly what the options schema accepts for that option", () => {
    const mismatches: string[] = [];
    for (const key of Object.keys(PLAIN_OPTION_CHECKS)) {
      for (const value of CORPUS) {
        // Some rules relate two options: give bypassPermissions its confirmation, resume a backend.
        const options: Record<string, unknown> = { [key]: value };
        if (key === "permissionMode") options.allowDangerouslySkipPermissions = true;
        const plain = plainOptionsValid(options);
        const schema = agentOptionsIssues(options).length === 0;
        if (plain !== schema) mismatches.push(`${key}: ${String(value)} → plain ${plain}, schema ${schema}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("the cross-field rules apply to plain options too", () => {
    expect(plainOptionsValid({ permissionMode: "bypassPermissions" })).toBe(false);
    expect(plainOptionsValid({ resume: "not-a-uuid" })).toBe(false);
    expect(plainOptionsValid({ backend: "codex", resume: UUID })).toBe(true);
    expect(plainOptionsValid({ backend: "cursor", resume: "chat.1" })).toBe(true);
  });

  it("a query's usual options need no schema; any other option, or a class instance, does", () => {
    expect(optionSchemaNeeded({ backend: "codex", cliPath: "/usr/bin/codex", model: "gpt-5" })).toBe(false);
    expect(optionSchemaNeeded(undefined)).toBe(false);
    expect(optionSchemaNeeded({ backend: "codex", env: { A: "1" } })).toBe(true);
    expect(optionSchemaNeeded({ settings: "{}" })).toBe(true);
    expect(optionSchemaNeeded({ cliPath: "" })).toBe(true);
    expect(optionSchemaNeeded({ maxTurn: 1 })).toBe(true);
    expect(optionSchemaNeeded(new (class Options {})())).toBe(true);
    expect(optionSchemaNeeded(null)).toBe(true);
  });
});
