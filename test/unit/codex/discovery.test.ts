/**
 * Finding the Codex CLI.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { codexPlatformPackage, findCodexCli } from "../../../src/backends/codex/discovery.js";
import { CliNotFoundError } from "../../../src/index.js";

const scratch = mkdtempSync(join(tmpdir(), "codex-discovery-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

/** A directory with no node_modules to resolve from. */
const nowhere = [join(scratch, "nowhere", "package.json")];

describe("findCodexCli", () => {
  it("finds the native binary of the npm platform package installed in this repository", () => {
    const platform = codexPlatformPackage()!;
    const cli = findCodexCli({ env: { PATH: "" } });
    expect(cli.args).toEqual([]);
    expect(cli.command).toMatch(
      new RegExp(`@openai/codex-${process.platform}-${process.arch}/vendor/${platform.triple}/bin/codex$`),
    );
  });

  it("falls back to the @openai/codex launcher, run with this Node, when the platform package is missing", () => {
    const root = join(scratch, "launcher-only");
    const launcher = join(root, "node_modules", "@openai", "codex", "bin", "codex.js");
    mkdirSync(join(launcher, ".."), { recursive: true });
    writeFileSync(join(root, "node_modules", "@openai", "codex", "package.json"), '{"name":"@openai/codex"}');
    writeFileSync(launcher, "");
    const cli = findCodexCli({ env: { PATH: "" }, resolveFrom: [join(root, "package.json")] });
    expect(cli).toEqual({ command: process.execPath, args: [launcher] });
  });

  it("finds the platform package nested inside the launcher package", () => {
    const platform = codexPlatformPackage()!;
    const root = join(scratch, "nested");
    const launcherDir = join(root, "node_modules", "@openai", "codex");
    mkdirSync(launcherDir, { recursive: true });
    writeFileSync(join(launcherDir, "package.json"), '{"name":"@openai/codex"}');
    const pkgDir = join(launcherDir, "node_modules", ...platform.pkg.split("/"));
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(join(pkgDir, "package.json"), "{}");
    const binary = executable(join(pkgDir, "vendor", platform.triple, "bin", platform.binary));
    expect(findCodexCli({ env: { PATH: "" }, resolveFrom: [join(root, "package.json")] })).toEqual({
      command: binary,
      args: [],
    });
  });

  it("then searches PATH", () => {
    const bin = join(scratch, "path-bin");
    const codex = executable(join(bin, "codex"));
    expect(findCodexCli({ env: { PATH: bin, HOME: scratch }, resolveFrom: nowhere })).toEqual({
      command: codex,
      args: [],
    });
  });

  it("fails with CliNotFoundError listing every place searched and how to install", () => {
    const error = (() => {
      try {
        findCodexCli({
          env: { PATH: join(scratch, "empty"), HOME: join(scratch, "home") },
          resolveFrom: nowhere,
        });
      } catch (e) {
        return e;
      }
    })() as CliNotFoundError;
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect(error.cli).toBe("codex");
    expect(error.searched).toContain(join(scratch, "empty", "codex"));
    expect(error.searched).toContain(join(scratch, "home", ".local", "bin", "codex"));
    expect(error.message).toContain("npm install -g @openai/codex");
  });

  it("uses cliPath as given: a binary, or a .js launcher run with Node; a wrong path is an error", () => {
    const binary = executable(join(scratch, "explicit", "codex"));
    expect(findCodexCli({ cliPath: binary })).toEqual({ command: binary, args: [] });
    const script = join(scratch, "explicit", "codex.js");
    writeFileSync(script, "");
    expect(findCodexCli({ cliPath: script })).toEqual({ command: process.execPath, args: [script] });
    expect(() => findCodexCli({ cliPath: join(scratch, "missing") })).toThrow(CliNotFoundError);
  });

  it("honours $CODEX_CLI_PATH after cliPath", () => {
    const binary = executable(join(scratch, "env", "codex"));
    expect(findCodexCli({ env: { CODEX_CLI_PATH: binary } })).toEqual({ command: binary, args: [] });
    expect(() => findCodexCli({ env: { CODEX_CLI_PATH: join(scratch, "nope") } })).toThrow(/CODEX_CLI_PATH/);
  });
});

describe("codexPlatformPackage", () => {
  it("maps platforms to the packages and triples @openai/codex ships", () => {
    expect(codexPlatformPackage("linux", "x64")).toEqual({
      pkg: "@openai/codex-linux-x64",
      triple: "x86_64-unknown-linux-musl",
      binary: "codex",
    });
    expect(codexPlatformPackage("darwin", "arm64")?.triple).toBe("aarch64-apple-darwin");
    expect(codexPlatformPackage("win32", "x64")).toMatchObject({ binary: "codex.exe" });
    expect(codexPlatformPackage("freebsd", "x64")).toBeUndefined();
  });
});
