import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import {
  CLAUDE_CLI_PATH_ENV,
  checkClaudeVersion,
  compareVersions,
  findClaudeCli,
  MIN_CLAUDE_VERSION,
  parseClaudeVersion,
  SKIP_VERSION_CHECK_ENV,
} from "../../../src/backends/claude/discovery.js";
import { CliNotFoundError } from "../../../src/errors.js";

// Run against the Claude Code 2.1.330 npm package installed as a devDependency.

const tmp = mkdtempSync(join(tmpdir(), "discovery-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function script(name: string, body: string, mode = 0o755): string {
  const path = join(tmp, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
  return path;
}

const npmPackageDir = `${sep}node_modules${sep}@anthropic-ai${sep}claude-code`;
const onWindows = process.platform === "win32";

describe("findClaudeCli", () => {
  it("finds the binary of the npm platform package", () => {
    const found = findClaudeCli({});
    expect(found).toContain(npmPackageDir);
    expect(found).toMatch(
      new RegExp(
        `claude-code-${process.platform}-${process.arch}(-musl)?[\\\\/]claude(\\.exe)?$|claude\\.exe$`,
      ),
    );
  });

  it("still finds the npm package with an environment that has no PATH, and does so at once", () => {
    const started = Date.now();
    expect(findClaudeCli({ env: {} })).toContain(npmPackageDir);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("an explicit cliPath wins", () => {
    const cli = script("my-claude", "echo hi");
    expect(findClaudeCli({ cliPath: cli })).toBe(cli);
  });

  it("a missing cliPath is a CliNotFoundError naming it, not a reason to search elsewhere", () => {
    const missing = join(tmp, "does-not-exist", "claude");
    let error: unknown;
    try {
      findClaudeCli({ cliPath: missing });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect((error as CliNotFoundError).searched).toEqual([missing]);
    expect((error as CliNotFoundError).cli).toBe("claude");
    expect((error as Error).message).toContain(missing);
  });

  it.skipIf(onWindows)("a cliPath that is not executable (or is a directory) is rejected", () => {
    const plain = script("not-executable", "echo hi", 0o644);
    expect(() => findClaudeCli({ cliPath: plain })).toThrow(CliNotFoundError);
    expect(() => findClaudeCli({ cliPath: tmp })).toThrow(CliNotFoundError);
  });

  it("CLAUDE_CLI_PATH from the given env comes before the npm package; a bad one is an error", () => {
    const cli = script("env-claude", "echo hi");
    expect(findClaudeCli({ env: { [CLAUDE_CLI_PATH_ENV]: cli } })).toBe(cli);
    expect(() => findClaudeCli({ env: { [CLAUDE_CLI_PATH_ENV]: join(tmp, "nope") } })).toThrow(
      new RegExp(`${CLAUDE_CLI_PATH_ENV}`),
    );
  });
});

describe("findClaudeCli without the npm package", () => {
  afterEach(() => {
    vi.doUnmock("node:module");
    vi.resetModules();
  });

  /**
   * The discovery module as if no `@anthropic-ai/claude-code*` nor `@anthropic-ai/claude-agent-sdk*`
   * package were installed; with `agentSdkRoot`, the official Agent SDK's platform packages resolve
   * from that directory only (a fake install).
   */
  async function withoutNpmPackage(agentSdkRoot?: string) {
    vi.resetModules();
    vi.doMock("node:module", async (importOriginal) => {
      const actual = await importOriginal<typeof import("node:module")>();
      const createRequire = (from: string | URL) => {
        const req = actual.createRequire(from);
        const resolve = (id: string) => {
          if (agentSdkRoot && id.startsWith("@anthropic-ai/claude-agent-sdk-")) {
            return actual.createRequire(join(agentSdkRoot, "package.json")).resolve(id);
          }
          if (id.startsWith("@anthropic-ai/claude-code") || id.startsWith("@anthropic-ai/claude-agent-sdk")) {
            throw new Error(`Cannot find module '${id}'`);
          }
          return req.resolve(id);
        };
        return Object.assign(resolve, req, { resolve });
      };
      return { ...actual, default: { ...actual, createRequire }, createRequire };
    });
    const discovery = await import("../../../src/backends/claude/discovery.js");
    // Fresh module instances: the error class must come from the same reload to pass instanceof.
    const errors = await import("../../../src/errors.js");
    return { ...discovery, CliNotFoundError: errors.CliNotFoundError };
  }

  it.skipIf(onWindows)("walks PATH for an executable named claude", async () => {
    const { findClaudeCli: find } = await withoutNpmPackage();
    const dirA = join(tmp, "path-a");
    const dirB = join(tmp, "path-b");
    mkdirSync(dirA, { recursive: true });
    mkdirSync(dirB, { recursive: true });
    writeFileSync(join(dirA, "claude"), "not executable");
    const cli = join(dirB, "claude");
    writeFileSync(cli, "#!/bin/sh\n");
    chmodSync(cli, 0o755);
    expect(find({ env: { PATH: [dirA, dirB].join(":"), HOME: join(tmp, "home") } })).toBe(cli);
  });

  it.skipIf(onWindows)(
    "finds a claude in this user's ~/.local/bin when env gives the CLI another HOME",
    async () => {
      const { findClaudeCli: find } = await withoutNpmPackage();
      const realHome = join(tmp, "real-home");
      const cli = join(realHome, ".local", "bin", "claude");
      mkdirSync(join(realHome, ".local", "bin"), { recursive: true });
      writeFileSync(cli, "#!/bin/sh\n");
      chmodSync(cli, 0o755);
      // The testing kit's situation: the CLI gets an isolated HOME, the user's install is in the real one.
      vi.stubEnv("HOME", realHome);
      try {
        expect(find({ env: { HOME: join(tmp, "kit-home"), PATH: "" } })).toBe(cli);
      } finally {
        vi.unstubAllEnvs();
      }
    },
  );

  /** A fake `node_modules/<pkg>/claude` install under a fresh root; returns the root and the binary. */
  function fakeAgentSdkPackage(pkg: string): { root: string; binary: string } {
    const root = mkdtempSync(join(tmp, "agent-sdk-"));
    writeFileSync(join(root, "package.json"), "{}");
    const dir = join(root, "node_modules", ...pkg.split("/"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: pkg, version: "0.3.330" }));
    const binary = join(dir, "claude");
    writeFileSync(binary, "#!/bin/sh\n");
    chmodSync(binary, 0o755);
    return { root, binary };
  }

  it.skipIf(onWindows)(
    "finds the official Agent SDK's platform binary (@anthropic-ai/claude-agent-sdk-<platform>-<arch>/claude) before PATH",
    async () => {
      const { findClaudeCli: find, platformPackageNames } = await withoutNpmPackage(
        fakeAgentSdkPackage(`@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`).root,
      );
      const pathDir = join(tmp, "path-with-claude");
      mkdirSync(pathDir, { recursive: true });
      writeFileSync(join(pathDir, "claude"), "#!/bin/sh\n");
      chmodSync(join(pathDir, "claude"), 0o755);
      const found = find({ env: { PATH: pathDir, HOME: join(tmp, "home") } });
      expect(found).toMatch(
        new RegExp(`node_modules/@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/claude$`),
      );
      expect(platformPackageNames("p", "linux", "x64", false)).toEqual(["p-linux-x64", "p-linux-x64-musl"]);
      expect(platformPackageNames("p", "linux", "arm64", true)).toEqual([
        "p-linux-arm64-musl",
        "p-linux-arm64",
      ]);
      expect(platformPackageNames("p", "darwin", "arm64", false)).toEqual(["p-darwin-arm64"]);
      expect(platformPackageNames("p", "android", "arm64", false)).toEqual(["p-linux-arm64-android"]);
    },
  );

  // Absolute install locations outside HOME would be found on a machine with a global install.
  const globalInstall = ["/usr/local/bin/claude", "/opt/homebrew/bin/claude"].some((p) => existsSync(p));

  it.skipIf(globalInstall)("fails fast with every place searched and install hints", async () => {
    const { findClaudeCli: find, CliNotFoundError } = await withoutNpmPackage();
    const home = join(tmp, "empty-home");
    let error: unknown;
    try {
      find({ env: { HOME: home } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliNotFoundError);
    const { searched, message } = error as CliNotFoundError;
    expect(searched).toContain("$PATH (empty)");
    expect(searched).toContain(join(home, ".npm-global", "bin", "claude"));
    expect(searched).toContain(join(home, ".claude", "local", "claude"));
    expect(message).toContain("npm install -g @anthropic-ai/claude-code");
    expect(message).toContain("cliPath");
  });
});

describe("checkClaudeVersion", () => {
  it("reads the version of the real CLI, also without PATH", async () => {
    const cli = findClaudeCli({});
    await expect(checkClaudeVersion(cli, {})).resolves.toEqual({ version: "2.1.330" });
  });

  it.skipIf(onWindows)("warns about a CLI older than the minimum", async () => {
    const old = script("old-claude", 'echo "1.0.5 (Claude Code)"');
    const check = await checkClaudeVersion(old, {});
    expect(check.version).toBe("1.0.5");
    expect(check.warning).toContain(MIN_CLAUDE_VERSION);
  });

  it.skipIf(onWindows)(
    "a CLI that hangs is cut off by the timeout and reported, not awaited forever",
    async () => {
      const slow = script("slow-claude", "exec sleep 30");
      const started = Date.now();
      const check = await checkClaudeVersion(slow, {}, 300);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(check).toEqual({ version: undefined, warning: expect.stringContaining("Could not determine") });
    },
  );

  it("a CLI that cannot run yields a warning, not a rejection", async () => {
    const check = await checkClaudeVersion(join(tmp, "missing-claude"), {});
    expect(check.version).toBeUndefined();
    expect(check.warning).toMatch(/Could not determine/);
  });

  it("is skipped when CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK is set", async () => {
    const check = await checkClaudeVersion(join(tmp, "never-run"), { [SKIP_VERSION_CHECK_ENV]: "1" });
    expect(check).toEqual({ version: undefined });
  });

  it("parses and compares versions", () => {
    expect(parseClaudeVersion("2.1.330 (Claude Code)\n")).toBe("2.1.330");
    expect(parseClaudeVersion("garbage")).toBeUndefined();
    expect(compareVersions("2.1.330", "2.0.0")).toBeGreaterThan(0);
    expect(compareVersions("1.99.99", "2.0.0")).toBeLessThan(0);
    expect(compareVersions("2.0.0", "2.0.0")).toBe(0);
    expect(compareVersions("2.10.0", "2.9.0")).toBeGreaterThan(0);
  });
});
