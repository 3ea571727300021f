/**
 * The Node releases the suite runs on (the machine's Node 20 and each one pinned in
 * `.ci/node-versions`, all of them CI gates) are the ones the README's Requirements name, and each
 * has its `test:node<major>` script: changing one without the others fails here.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SINGLE_VERSION_FILES } from "../../vitest.config.js";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");

const pinned = read(".ci/node-versions")
  .split("\n")
  .map((line) => line.replace(/#.*/, "").trim())
  .filter((line) => line !== "");
const pkg = JSON.parse(read("package.json")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

describe("the Node versions CI tests", () => {
  it("pins exact releases of 22 and 24", () => {
    expect(pinned.map((v) => v.split(".")[0])).toEqual(["22", "24"]);
    for (const v of pinned) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("engines names exactly the tested lines, each from its tested release's minor", () => {
    // The machine's Node 20 (20.20.2) and the pinned ones: no untested line (21, 23, 25, 26) and no
    // older minor of a tested line.
    const lines = ["20.20.0", ...pinned.map((v) => v.replace(/\.\d+$/, ".0"))];
    expect(pkg.engines.node).toBe(lines.map((v) => `^${v}`).join(" || "));
  });

  it("are named in the README's Requirements, with a test:node<major> script each", () => {
    const readme = read("README.md");
    const requirements = readme.slice(readme.indexOf("### Requirements"), readme.indexOf("- **ESM only.**"));
    expect(requirements).toContain(`\`engines\`: \`${pkg.engines.node}\``);
    for (const v of pinned) {
      expect(requirements).toContain(v);
      const major = v.split(".")[0];
      expect(pkg.scripts[`test:node${major}`]).toBe(`scripts/with-node.sh ${major} npm test`);
    }
  });

  it("CI runs the README's test command on the machine's Node and on every pinned one, by default", () => {
    const ci = read(".ci/run");
    expect(ci).toMatch(/^run "[^"]*" npm test$/m);
    expect(ci).toMatch(
      /^ {2}run "[^"]*" env SINGLE_VERSION_FILES=skip scripts\/with-node\.sh "\$v" npm test$/m,
    );
    expect(ci).toContain(".ci/node-versions");
    // The pinned lines are read unless CI_NODES=machine is set (CI never sets it): not opt-in.
    expect(ci).toMatch(/^if \[\[ "\$\{CI_NODES:-all\}" != machine \]\]; then$/m);
    expect(ci).not.toContain("CI_ALL_NODES");
  });

  it("skips on the other lines only files that exist and are marked single-version", () => {
    // A stale entry would mislead: its file, renamed, runs on every line again, unmarked.
    for (const file of SINGLE_VERSION_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
    expect(new Set(SINGLE_VERSION_FILES).size).toBe(SINGLE_VERSION_FILES.length);
  });
});
