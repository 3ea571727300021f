/**
 * A query pays only for the option schemas it uses: validating options (Claude's validator, with
 * its unknown-nested-field walk) builds the schemas of the options present and no other. Run in a
 * fresh Node process, as a first query is.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function builtAfter(options: string): string[] {
  const script = `
    const { validateClaudeOptions } = await import("./src/backends/claude/validate.ts");
    const { builtOptionSchemas } = await import("./src/options-schema.ts");
    validateClaudeOptions(${options});
    console.log(JSON.stringify(builtOptionSchemas().sort()));`;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as string[];
}

it("validating builds only the schemas of the options given, and none for plain options", () => {
  expect(builtAfter("{}")).toEqual([]);
  // Plain options (src/options/plain.ts) are checked without the schema.
  expect(builtAfter(`{ model: "sonnet", maxTurns: 2 }`)).toEqual([]);
  expect(builtAfter(`{ model: "sonnet", env: { A: "1" } }`)).toEqual(["env", "model"]);
  // A CLI-owned option present is walked for unknown fields: its schema, and only its, is built.
  expect(builtAfter(`{ sandbox: { enabled: true } }`)).toEqual(["sandbox"]);
});
