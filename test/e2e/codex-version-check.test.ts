/**
 * The Codex version check: learned without running `codex --version`, from the npm package around
 * the binary; an old release warns once per executable and still runs. The real codex 0.169.0 is
 * run through a launcher script inside a stand-in `@openai/codex` package that claims 0.150.0.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { findCodexCli } from "../../src/backends/codex/discovery.js";
import { OLDEST_VERIFIED_CODEX } from "../../src/backends/verified-versions.js";
import { query } from "../../src/index.js";
import { codexBed } from "./codex-support.js";
import { collect } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "cas-codex-version-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let warnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code === "CODE_AGENT_SDK_CLI_VERSION") warnings.push(warning);
};
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** A launcher for the real codex inside a package that says it is `version`. */
function packagedCodex(name: string, version: string): string {
  const pkg = join(dir, name, "node_modules", "@openai", "codex");
  mkdirSync(join(pkg, "bin"), { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@openai/codex", version }));
  const real = findCodexCli();
  const launcher = join(pkg, "bin", "codex");
  writeFileSync(
    launcher,
    `#!/bin/sh\nexec ${[real.command, ...real.args].map((a) => `'${a}'`).join(" ")} "$@"\n`,
  );
  chmodSync(launcher, 0o755);
  return launcher;
}

const delivered = () => new Promise((resolve) => setImmediate(resolve));

describe("Codex version check", () => {
  it("an npm package older than the oldest verified release warns once per executable; the run goes on", async () => {
    const cliPath = packagedCodex("old", "0.150.0");
    await using bed = await codexBed([{ text: "first" }, { text: "second" }]);
    const first = await collect(query({ prompt: "hi", options: bed.options({ cliPath }) }));
    expect(first.find((m) => m.type === "result")).toMatchObject({ result: "first" });
    await collect(query({ prompt: "again", options: bed.options({ cliPath }) }));
    await delivered();
    expect(warnings.map((w) => w.message)).toEqual([
      `Codex 0.150.0 at ${cliPath} is older than ${OLDEST_VERIFIED_CODEX}, the oldest version this SDK was verified with; some features may not work. Update with \`npm install -g @openai/codex\`.`,
    ]);
  });

  it("a verified release does not warn, and the check can be switched off", async () => {
    await using bed = await codexBed([{ text: "ok" }, { text: "ok" }]);
    await collect(
      query({ prompt: "hi", options: bed.options({ cliPath: packagedCodex("new", "0.169.0") }) }),
    );
    const skipped = packagedCodex("skipped", "0.100.0");
    await collect(
      query({
        prompt: "hi",
        options: bed.options({ cliPath: skipped, env: { CODE_AGENT_SDK_SKIP_VERSION_CHECK: "1" } }),
      }),
    );
    await delivered();
    expect(warnings).toEqual([]);
  });

  it("an executable with no Codex package above it is looked at once, not at every session", async () => {
    const cliPath = packagedCodex("unpackaged", "0.150.0");
    const manifest = join(dir, "unpackaged", "node_modules", "@openai", "codex", "package.json");
    rmSync(manifest);
    await using bed = await codexBed([{ text: "first" }, { text: "second" }]);
    await collect(query({ prompt: "hi", options: bed.options({ cliPath }) }));
    // An old package appearing now is not read: the first session found none.
    writeFileSync(manifest, JSON.stringify({ name: "@openai/codex", version: "0.150.0" }));
    await collect(query({ prompt: "again", options: bed.options({ cliPath }) }));
    await delivered();
    expect(warnings).toEqual([]);
  });
});
