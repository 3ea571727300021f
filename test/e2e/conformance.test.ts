/**
 * The cross-backend conformance suite of the testing kit: the same programs and scripted models on
 * every backend, compared as unified transcripts. Claude Code 2.1.330 and Codex 0.169.0 run for
 * real, offline; Cursor runs against its stand-in (no binary is installable here), labelled as such.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { liveGroupCount } from "../../src/process/group-registry.js";
import {
  CONFORMANCE_SCENARIOS,
  type ConformanceResult,
  type ConformanceTarget,
  claudeConformanceTarget,
  codexConformanceTarget,
  conformanceTable,
  runScenario,
} from "../../src/testing/index.js";
import { FAKE_CURSOR } from "./cursor-support.js";

/** The Cursor stand-in: it plays scripted text answers only, and has no model server to inspect. */
const cursorStandIn: ConformanceTarget = {
  name: "cursor (stand-in)",
  backend: "cursor",
  features: [],
  plays: ["text"],
  async start(steps) {
    const root = mkdtempSync(join(tmpdir(), "cas-conformance-cursor-"));
    const replies = steps.map((step) => ("text" in step ? step.text : ""));
    return {
      cwd: root,
      options: (extra = {}) => ({
        backend: "cursor",
        cliPath: FAKE_CURSOR,
        cwd: root,
        ...extra,
        env: { HOME: root, FAKE_CURSOR_REPLIES: JSON.stringify(replies), ...extra.env },
        cursor: { apiKey: "sk-cursor-test", ...extra.cursor },
      }),
      stalled: () => Promise.reject(new Error("the stand-in does not stall")),
      modelRequests: () => [],
      async [Symbol.asyncDispose]() {
        rmSync(root, { recursive: true, force: true });
      },
    };
  },
};

const targets = [
  claudeConformanceTarget({ name: "claude 2.1.330" }),
  codexConformanceTarget({ name: "codex 0.169.0" }),
  cursorStandIn,
];
const results: ConformanceResult[] = [];

afterAll(() => {
  // The table in the README and the closing note comes from this output.
  if (results.length > 0) console.log(`\n${conformanceTable(results)}\n`);
});

describe.each(targets)("conformance: $name", (target) => {
  it.each(CONFORMANCE_SCENARIOS.map((s) => [s.id, s] as const))("%s", async (_id, scenario) => {
    const outcome = await runScenario(target, scenario);
    results.push({ target: target.name, scenario: scenario.id, outcome });
    if (outcome.status === "failed") {
      throw new Error(
        `${scenario.id} on ${target.name}:\n- ${outcome.problems.join("\n- ")}\n${JSON.stringify(outcome.transcript, null, 1)}`,
      );
    }
    if (outcome.status === "skipped")
      expect(outcome.reason).toMatch(
        /^(missing capability|not offered by this target|its scripted model cannot play)/,
      );
    expect(liveGroupCount()).toBe(0);
  });
});
