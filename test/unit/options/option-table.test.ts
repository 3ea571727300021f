/**
 * The capability table of docs/options.md is generated from the support table (`OPTION_SUPPORT`)
 * by scripts/generate-option-table.ts; this fails when the committed section is stale (an option
 * added, or a backend's support changed, without re-running the script).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  currentOptionTable,
  OPTION_TABLE_FILE,
  renderOptionTable,
  withOptionTable,
} from "../../../scripts/generate-option-table.js";
import { OPTION_NAMES } from "../../../src/options/support.js";

describe("docs/options.md capability table", () => {
  it("is what the script generates from the support table (run: npx tsx scripts/generate-option-table.ts)", () => {
    const committed = currentOptionTable(readFileSync(OPTION_TABLE_FILE, "utf8"));
    expect(committed, "docs/options.md has no <!-- option-table:start --> section").toBeDefined();
    expect(committed).toBe(renderOptionTable());
  });

  it("has one row per option, each naming every backend", () => {
    const rows = renderOptionTable()
      .split("\n")
      .filter((line) => line.startsWith("| `"));
    expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1])).toEqual(OPTION_NAMES);
    for (const row of rows) expect(row.split(" | ")).toHaveLength(6);
  });

  it("replaces only the marked section", () => {
    const text = "# T\n\nbefore\n\n<!-- option-table:start -->\nold\n<!-- option-table:end -->\n\nafter\n";
    const next = withOptionTable(text, "<!-- option-table:start -->\nnew\n<!-- option-table:end -->");
    expect(next).toBe(
      "# T\n\nbefore\n\n<!-- option-table:start -->\nnew\n<!-- option-table:end -->\n\nafter\n",
    );
  });
});
