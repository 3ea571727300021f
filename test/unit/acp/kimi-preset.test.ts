/**
 * The Kimi Code preset: its JavaScript entry runs on this Node only from Node 22.19 on (the bundle
 * imports Node 22 APIs at load and dies with a SyntaxError on Node 20). On an older Node the entry
 * is passed over, `kimi` on PATH is taken unless it is a link to that same entry, and otherwise
 * starting fails before anything runs with a CliNotFoundError naming both versions.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ACP_PRESETS, nodeAtLeast, resolveAcpCommand } from "../../../src/backends/acp/presets.js";
import { CliNotFoundError, query } from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project with a stand-in `@moonshot-ai/kimi-code` (bin `kimi` → dist/main.mjs) and a PATH dir. */
function project(): { from: string; entry: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), "cas-acp-kimi-"));
  dirs.push(dir);
  const from = join(dir, "package.json");
  writeFileSync(from, "{}");
  const pkg = join(dir, "node_modules", "@moonshot-ai", "kimi-code");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "@moonshot-ai/kimi-code", version: "2.1.0", bin: { kimi: "dist/main.mjs" } }),
  );
  const entry = join(pkg, "dist", "main.mjs");
  writeFileSync(entry, "#!/usr/bin/env node\n", { mode: 0o755 });
  const bin = join(dir, "bin");
  mkdirSync(bin);
  return { from, entry, bin };
}

function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("did not throw");
}

describe("Kimi Code preset", () => {
  it("is `kimi acp` from @moonshot-ai/kimi-code, needing Node 22.19", () => {
    expect(ACP_PRESETS.kimi).toMatchObject({
      packageName: "@moonshot-ai/kimi-code",
      bin: "kimi",
      args: ["acp"],
      minNode: "22.19.0",
    });
  });

  it("compares Node versions numerically", () => {
    expect(nodeAtLeast("22.19.0", "22.19.0")).toBe(true);
    expect(nodeAtLeast("22.23.3", "22.19.0")).toBe(true);
    expect(nodeAtLeast("24.0.0", "22.19.0")).toBe(true);
    expect(nodeAtLeast("22.9.0", "22.19.0")).toBe(false);
    expect(nodeAtLeast("20.20.2", "22.19.0")).toBe(false);
  });

  it("on Node >= 22.19 its JavaScript entry runs on that Node, `acp` after it", () => {
    const p = project();
    expect(
      resolveAcpCommand({ agent: "kimi" }, undefined, {
        env: { PATH: p.bin },
        resolveFrom: [p.from],
        nodeVersion: "22.19.0",
      }),
    ).toEqual({ command: process.execPath, args: [p.entry, "acp"], name: "kimi" });
  });

  it("on Node 20 it fails before anything runs, naming the Node it needs and this one", () => {
    const p = project();
    const error = failure(() =>
      resolveAcpCommand({ agent: "kimi" }, undefined, {
        env: { PATH: p.bin },
        resolveFrom: [p.from],
        nodeVersion: "20.20.2",
      }),
    );
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect(error.message).toContain(`@moonshot-ai/kimi-code at ${p.entry} needs Node >= 22.19.0`);
    expect(error.message).toContain("(this is 20.20.2)");
    expect((error as CliNotFoundError).searched).toContain(join(p.bin, "kimi"));
  });

  it("on Node 20 a `kimi` on PATH that links to the passed-over entry is not taken (npm's .bin)", () => {
    const p = project();
    symlinkSync(p.entry, join(p.bin, "kimi"));
    const error = failure(() =>
      resolveAcpCommand({ agent: "kimi" }, undefined, {
        env: { PATH: p.bin },
        resolveFrom: [p.from],
        nodeVersion: "20.20.2",
      }),
    );
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect(error.message).toContain("needs Node >= 22.19.0");
  });

  it("on Node 20 another `kimi` on PATH (a native build) is taken", () => {
    const p = project();
    writeFileSync(join(p.bin, "kimi"), "#!/bin/sh\n", { mode: 0o755 });
    expect(
      resolveAcpCommand({ agent: "kimi" }, undefined, {
        env: { PATH: p.bin },
        resolveFrom: [p.from],
        nodeVersion: "20.20.2",
      }),
    ).toEqual({ command: join(p.bin, "kimi"), args: ["acp"], name: "kimi" });
  });

  it("an explicit acp.command is taken as is, whatever this Node", () => {
    expect(
      resolveAcpCommand({ agent: "kimi", command: process.execPath }, undefined, {
        env: {},
        nodeVersion: "20.20.2",
      }),
    ).toEqual({ command: process.execPath, args: ["acp"], name: "kimi" });
  });

  it.runIf(!nodeAtLeast(process.versions.node, "22.19.0"))(
    "on this Node query() fails with CliNotFoundError naming the Node, npm's .bin/kimi on PATH or not",
    async () => {
      const bin = join(process.cwd(), "node_modules", ".bin");
      let error: unknown;
      try {
        for await (const _ of query({
          prompt: "hi",
          options: { backend: "acp", acp: { agent: "kimi" }, env: { PATH: bin }, inheritEnv: false },
        })) {
          // nothing arrives
        }
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CliNotFoundError);
      expect(String(error)).toContain(`needs Node >= 22.19.0 (this is ${process.versions.node})`);
      expect((error as CliNotFoundError).searched).toContain(join(bin, "kimi"));
    },
  );

  it("the installed package resolves on this Node as the version says", () => {
    const run = () => resolveAcpCommand({ agent: "kimi" }, undefined, { env: {} });
    if (nodeAtLeast(process.versions.node, "22.19.0")) {
      expect(run().args[0]).toMatch(/@moonshot-ai\/kimi-code\/dist\/main\.mjs$/);
    } else {
      expect(failure(run).message).toContain(`(this is ${process.versions.node})`);
    }
  });
});
