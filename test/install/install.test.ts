/**
 * The CLI installer, for real against the npm registry: Claude Code is installed once into a
 * temporary cache (≈380 MB; npm's own cache makes it fast when the project's devDependency already
 * fetched it), then reused by every test; a version that does not exist fails with a typed error.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliNotFoundError } from "../../src/errors.js";
import { query } from "../../src/index.js";
import {
  CLI_CACHE_DIR_ENV,
  CliInstallError,
  cliCacheRoot,
  findOrInstallCli,
  INSTALL_MARKER,
  type InstallCliResult,
  type InstallProgress,
  installCli,
  installedCliPath,
  listInstalledClis,
} from "../../src/install/index.js";
import { startFakeAnthropic } from "../../src/testing/index.js";
import { cliEnv, ROOT, runPiped } from "../cli/support/harness.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};
/** The version the project tests against (exact pin in package.json): npm's cache already has it. */
const CLAUDE_VERSION = pkg.devDependencies["@anthropic-ai/claude-code"] ?? "latest";

let cache: string;
let installed: InstallCliResult;
const events: InstallProgress[] = [];

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), "code-agent-cli-cache-"));
  installed = await installCli({
    backend: "claude",
    version: CLAUDE_VERSION,
    cacheDir: cache,
    onProgress: (event) => events.push(event),
  });
}, 900_000);

afterAll(() => {
  if (cache) rmSync(cache, { recursive: true, force: true });
});

describe("installCli (claude, for real)", () => {
  it("reports checking → downloading (bytes) → installing → done, in that order", () => {
    const types = events.map((e) => e.type);
    const firstOf = (t: InstallProgress["type"]) => types.indexOf(t);
    expect(firstOf("checking")).toBe(0);
    expect(firstOf("downloading")).toBeGreaterThan(firstOf("checking"));
    expect(firstOf("installing")).toBeGreaterThan(types.lastIndexOf("downloading"));
    expect(types.at(-1)).toBe("done");
    expect(types).not.toContain("failed");

    const downloads = events.filter(
      (e): e is Extract<InstallProgress, { type: "downloading" }> => e.type === "downloading",
    );
    expect(downloads[0]?.current).toBe(0);
    const bytes = downloads.map((e) => e.current);
    expect([...bytes].sort((a, b) => a - b)).toEqual(bytes);
    // The native binary alone is hundreds of MB.
    expect(bytes.at(-1)).toBeGreaterThan(50 * 1024 * 1024);

    const done = events.at(-1);
    expect(done).toMatchObject({
      type: "done",
      backend: "claude",
      version: CLAUDE_VERSION,
      path: installed.path,
      alreadyInstalled: false,
    });
  });

  it("installs into <cache>/claude/<version>, never anywhere else, and the binary runs", () => {
    expect(installed.dir).toBe(join(cache, "claude", CLAUDE_VERSION));
    expect(installed.path.startsWith(installed.dir)).toBe(true);
    expect(readdirSync(join(cache, "claude"))).toEqual([CLAUDE_VERSION]); // no staging leftovers
    expect(existsSync(join(installed.dir, "package.json"))).toBe(false); // --no-save
    const marker = JSON.parse(readFileSync(join(installed.dir, INSTALL_MARKER), "utf8"));
    expect(marker).toMatchObject({
      backend: "claude",
      version: CLAUDE_VERSION,
      npmPackage: "@anthropic-ai/claude-code",
    });
    expect(execFileSync(installed.path, ["--version"], { encoding: "utf8" })).toContain(CLAUDE_VERSION);
  });

  it("installedCliPath finds it (for discovery), by cache dir, by environment, by version", () => {
    expect(installedCliPath("claude", { cacheDir: cache })).toBe(installed.path);
    expect(installedCliPath("claude", { env: { [CLI_CACHE_DIR_ENV]: cache } })).toBe(installed.path);
    expect(installedCliPath("claude", { cacheDir: cache, version: CLAUDE_VERSION })).toBe(installed.path);
    expect(installedCliPath("claude", { cacheDir: cache, version: "0.0.1" })).toBeUndefined();
    expect(installedCliPath("codex", { cacheDir: cache })).toBeUndefined();
    expect(listInstalledClis("claude", { cacheDir: cache }).map((c) => c.version)).toEqual([CLAUDE_VERSION]);
  });

  it("a second install of the same version reuses it without downloading", async () => {
    const again: InstallProgress[] = [];
    const result = await installCli({
      backend: "claude",
      version: CLAUDE_VERSION,
      cacheDir: cache,
      onProgress: (e) => again.push(e),
    });
    expect(result).toMatchObject({ path: installed.path, alreadyInstalled: true });
    expect(again.map((e) => e.type)).toEqual(["checking", "checking", "done"]);
  });

  it("the installed CLI runs a real session (against the scripted model)", async () => {
    await using model = await startFakeAnthropic({ turns: [{ text: "Hello from the installed CLI." }] });
    let answer: string | undefined;
    for await (const m of query({ prompt: "hi", options: { cliPath: installed.path, env: model.env() } })) {
      if (m.type === "result") answer = m.result;
    }
    expect(answer).toBe("Hello from the installed CLI.");
  });

  it("findOrInstallCli: with autoInstallCli, a CliNotFoundError from discovery becomes the installed CLI", async () => {
    const notFound = () => {
      throw new CliNotFoundError("claude", ["/nowhere/claude"], "install it");
    };
    const progress: InstallProgress[] = [];
    const path = await findOrInstallCli(
      "claude",
      {
        autoInstallCli: { version: CLAUDE_VERSION, cacheDir: cache },
        onCliInstallProgress: (e) => progress.push(e),
      },
      notFound,
    );
    expect(path).toBe(installed.path);
    expect(progress.at(-1)).toMatchObject({ type: "done", alreadyInstalled: true });

    // Opt-in only: without autoInstallCli, or with an explicit cliPath, discovery's error stands.
    await expect(findOrInstallCli("claude", {}, notFound)).rejects.toBeInstanceOf(CliNotFoundError);
    await expect(
      findOrInstallCli("claude", { autoInstallCli: true, cliPath: "/nowhere/claude" }, notFound),
    ).rejects.toBeInstanceOf(CliNotFoundError);
    // Discovery that succeeds is never second-guessed.
    expect(await findOrInstallCli("claude", { autoInstallCli: true }, () => "/found/claude")).toBe(
      "/found/claude",
    );
    // Cursor is not on npm: its not-found error stands.
    await expect(findOrInstallCli("cursor", { autoInstallCli: true }, notFound)).rejects.toBeInstanceOf(
      CliNotFoundError,
    );
  });

  it("`code-agent install claude VERSION --cache-dir DIR` prints the path (already installed here)", async () => {
    const { code, stdout, stderr } = await runPiped([
      "install",
      `claude@${CLAUDE_VERSION}`,
      "--cache-dir",
      cache,
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${installed.path}\n`);
    expect(stderr).toContain(`Claude Code ${CLAUDE_VERSION} is already installed: ${installed.path}`);
  });

  it("`code-agent install claude --json` prints the progress events as JSON lines", async () => {
    const { code, stdout } = await runPiped([
      "install",
      "claude",
      CLAUDE_VERSION,
      "--cache-dir",
      cache,
      "--json",
    ]);
    expect(code).toBe(0);
    const lines = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(["checking", "checking", "done"]);
  });
});

describe("installCli failures", () => {
  it("a version that does not exist: a failed event, then CliInstallError (version-not-found), nothing installed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "code-agent-cli-cache-"));
    try {
      const progress: InstallProgress[] = [];
      const error = await installCli({
        backend: "claude",
        version: "0.0.0-does-not-exist",
        cacheDir: dir,
        onProgress: (e) => progress.push(e),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliInstallError);
      expect(error).toMatchObject({
        failure: "version-not-found",
        backend: "claude",
        version: "0.0.0-does-not-exist",
      });
      expect((error as Error).message).toContain(
        "@anthropic-ai/claude-code@0.0.0-does-not-exist does not exist",
      );
      const failed = progress.at(-1);
      expect(failed).toMatchObject({ type: "failed", backend: "claude" });
      expect(failed?.type === "failed" && failed.error).toBe(error);
      expect(failed?.type === "failed" && failed.reason).toContain("does not exist");
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses what is not a version, and backends that are not on npm", async () => {
    await expect(installCli({ backend: "claude", version: "--registry=http://evil" })).rejects.toMatchObject({
      failure: "invalid-request",
    });
    await expect(installCli({ backend: "cursor" as never })).rejects.toMatchObject({
      failure: "invalid-request",
    });
  });

  it("npm that cannot be started is npm-not-found", async () => {
    const dir = mkdtempSync(join(tmpdir(), "code-agent-cli-cache-"));
    try {
      await expect(
        installCli({
          backend: "claude",
          version: "1.0.0",
          cacheDir: dir,
          npmCommand: join(dir, "no-npm-here"),
        }),
      ).rejects.toMatchObject({ failure: "npm-not-found" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("`code-agent install claude 0.0.0-does-not-exist` exits 1 and says why", async () => {
    const dir = mkdtempSync(join(tmpdir(), "code-agent-cli-cache-"));
    try {
      const { code, stdout, stderr } = await runPiped(
        ["install", "claude", "0.0.0-does-not-exist", "--cache-dir", dir],
        {
          env: cliEnv(),
        },
      );
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain(
        "✗ @anthropic-ai/claude-code@0.0.0-does-not-exist does not exist on the npm registry",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("cliCacheRoot", () => {
  it("uses the override, then XDG_CACHE_HOME, then ~/.cache", () => {
    expect(cliCacheRoot({ cacheDir: "/x" })).toBe("/x");
    expect(cliCacheRoot({ env: { [CLI_CACHE_DIR_ENV]: "/y", XDG_CACHE_HOME: "/xdg" } })).toBe("/y");
    expect(cliCacheRoot({ env: { XDG_CACHE_HOME: "/xdg", HOME: "/home/u" } })).toBe(
      "/xdg/code-agent-sdk/clis",
    );
    expect(cliCacheRoot({ env: { XDG_CACHE_HOME: "relative", HOME: "/home/u" } })).toBe(
      "/home/u/.cache/code-agent-sdk/clis",
    );
    expect(cliCacheRoot({ env: { HOME: "/home/u" } })).toBe("/home/u/.cache/code-agent-sdk/clis");
  });
});
