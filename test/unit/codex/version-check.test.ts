import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCodexVersion, codexVersionFromPackage } from "../../../src/backends/codex/discovery.js";
import { OLDEST_VERIFIED_CODEX } from "../../../src/backends/verified-versions.js";

const dir = mkdtempSync(join(tmpdir(), "codex-version-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in `codex` that prints `output` for `--version`. */
function standIn(name: string, output: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho '${output}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe.skipIf(process.platform === "win32")("checkCodexVersion", () => {
  it("warns about a release older than the oldest verified one", async () => {
    const command = standIn("old", "codex-cli 0.150.0");
    const check = await checkCodexVersion({ command, args: [] });
    expect(check.version).toBe("0.150.0");
    expect(check.warning).toContain(`Codex 0.150.0 at ${command} is older than ${OLDEST_VERIFIED_CODEX}`);
    expect(check.warning).toContain("npm install -g @openai/codex");
  });

  it("accepts the oldest verified release and newer ones", async () => {
    for (const version of [OLDEST_VERIFIED_CODEX, "0.169.0", "1.0.0"]) {
      const check = await checkCodexVersion({
        command: standIn(`v${version}`, `codex-cli ${version}`),
        args: [],
      });
      expect(check).toEqual({ version });
    }
  });

  it("says so when the version cannot be read, and is skipped on request", async () => {
    const command = standIn("odd", "hello");
    expect((await checkCodexVersion({ command, args: [] })).warning).toMatch(
      /Could not determine the Codex version/,
    );
    expect(
      await checkCodexVersion({ command, args: [] }, { CODE_AGENT_SDK_SKIP_VERSION_CHECK: "1" }),
    ).toEqual({
      version: undefined,
    });
  });
});

describe.skipIf(process.platform === "win32")("codexVersionFromPackage", () => {
  it("reads the @openai/codex* package above the binary, following links; nothing for other installs", () => {
    const pkg = join(dir, "node_modules", "@openai", "codex-linux-x64");
    const bin = join(pkg, "vendor", "x86_64-unknown-linux-musl", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "@openai/codex", version: "0.150.0-linux-x64" }),
    );
    const binary = standIn(
      "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
      "x",
    );
    expect(codexVersionFromPackage({ command: binary, args: [] })).toBe("0.150.0");
    const link = join(dir, "linked-codex");
    symlinkSync(binary, link);
    expect(codexVersionFromPackage({ command: link, args: [] })).toBe("0.150.0");
    // The launcher form: node + codex.js.
    expect(codexVersionFromPackage({ command: process.execPath, args: [binary] })).toBe("0.150.0");
    expect(codexVersionFromPackage({ command: standIn("loose-codex", "x"), args: [] })).toBeUndefined();
    expect(codexVersionFromPackage({ command: join(dir, "missing"), args: [] })).toBeUndefined();
  });
});
