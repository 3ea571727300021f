/**
 * `settings` / `managedSettings`: every field of the CLI's settings schema typed (generated from the
 * official SDK's `Settings`, see scripts/generate-claude-settings.ts), checked loosely at runtime,
 * unknown fields passed through and named once in a warning.
 */
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { buildClaudeArgs } from "../../../src/backends/claude/command.js";
import type { ClaudeSettings } from "../../../src/backends/claude/index.js";
import { buildClaudeInitialize } from "../../../src/backends/claude/initialize.js";
import { validateClaudeOptions } from "../../../src/backends/claude/validate.js";
import { agentOptionsIssues, unknownNestedFields } from "../../../src/options-schema.js";

const typed: ClaudeSettings = {
  permissions: {
    allow: ["Read"],
    deny: ["Bash(rm:*)"],
    defaultMode: "acceptEdits",
    disableAutoMode: "disable",
  },
  env: { FOO: "1" },
  cleanupPeriodDays: 7,
  attribution: { commit: "", pr: "", sessionUrl: false },
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true", onFailure: "block" }] }],
  },
  allowedMcpServers: [{ serverCommand: ["node", "server.js"] }],
  extraKnownMarketplaces: { m: { source: { source: "github", repo: "o/r", ref: "main" } } },
  sandbox: { enabled: true, network: { allowedDomains: ["example.com"] } },
  strictPluginOnlyCustomization: ["skills", "hooks"],
  policyHelper: { path: "/bin/helper", refreshIntervalMs: 0 },
};

describe("ClaudeSettings", () => {
  it("accepts typed settings of every shape, as settings and as managedSettings", () => {
    expect(agentOptionsIssues({ settings: typed, managedSettings: typed })).toEqual([]);
    expect(unknownNestedFields({ settings: typed, managedSettings: typed })).toEqual([]);
  });

  it("checks known fields at any depth, naming the path", () => {
    expect(
      agentOptionsIssues({
        settings: { permissions: { deny: "Bash" } },
        managedSettings: { cleanupPeriodDays: "7", permissions: { defaultMode: "yolo" } },
      }),
    ).toEqual([
      "settings.permissions.deny: Invalid input: expected array, received string",
      "managedSettings.cleanupPeriodDays: Invalid input: expected number, received string",
      expect.stringMatching(/^managedSettings\.permissions\.defaultMode: Invalid option: expected one of/),
    ]);
    expect(agentOptionsIssues({ settings: { allowedMcpServers: [{ serverCommand: [] }] } })).toEqual([
      expect.stringMatching(/^settings\.allowedMcpServers\[0\]\.serverCommand/),
    ]);
  });

  it("passes unknown fields through and lists them for the warning, inside unions too", () => {
    const options = {
      settings: {
        futureSetting: 1,
        permissions: { deny: ["Bash"], futurePermission: true },
        hooks: { Stop: [{ hooks: [{ type: "http" as const, url: "http://127.0.0.1:1", retry: 3 }] }] },
        extraKnownMarketplaces: { m: { source: { source: "npm" as const, package: "p", scope: "@x" } } },
      },
      managedSettings: { sandbox: { network: { futureNet: 1 } } },
    };
    expect(agentOptionsIssues(options)).toEqual([]);
    expect(unknownNestedFields(options).sort()).toEqual(
      [
        "settings.futureSetting",
        "settings.permissions.futurePermission",
        "settings.hooks.Stop[0].hooks[0].retry",
        "settings.extraKnownMarketplaces.m.source.scope",
        "managedSettings.sandbox.network.futureNet",
      ].sort(),
    );
    const argv = buildClaudeArgs(options, { sdkMcpServerNames: [], files: null });
    const settings = JSON.parse(argv[argv.indexOf("--settings") + 1]!);
    expect(settings.futureSetting).toBe(1);
    expect(settings.extraKnownMarketplaces.m.source.scope).toBe("@x");
    expect(argv).toContain("--managed-settings-in-initialize");
    expect(buildClaudeInitialize(options).managedSettings).toEqual(options.managedSettings);
  });

  it("the same walk covers the other CLI-owned options at any depth", () => {
    const options = {
      sandbox: {
        network: { tlsTerminate: { caCertPath: "/ca.pem", caFuture: 1 } },
        credentials: { files: [{ path: "/k", mode: "deny" as const, fileFuture: true }] },
      },
      mcpServers: { s: { command: "node", args: [], stdioFuture: 1 } },
    };
    expect(agentOptionsIssues(options)).toEqual([]);
    expect(unknownNestedFields(options).sort()).toEqual([
      "mcpServers.s.stdioFuture",
      "sandbox.credentials.files[0].fileFuture",
      "sandbox.network.tlsTerminate.caFuture",
    ]);
  });

  it("warns once per unknown field and process", async () => {
    const options = { settings: { onceOnlySettingForThisTest: true } };
    const warning = once(process, "warning") as Promise<[Error & { code?: string }]>;
    validateClaudeOptions(options);
    validateClaudeOptions(options);
    const [first] = await warning;
    expect(first.code).toBe("CODE_AGENT_SDK_UNKNOWN_NESTED_FIELD");
    expect(first.message).toContain("settings.onceOnlySettingForThisTest");
    const again: Error[] = [];
    const listen = (w: Error) => again.push(w);
    process.on("warning", listen);
    try {
      validateClaudeOptions(options);
      // `emitWarning` delivers on the next tick; one turn of the event loop is enough to see a repeat.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listen);
    }
    expect(again.filter((w) => w.message.includes("onceOnlySettingForThisTest"))).toEqual([]);
  });

  it("types wrong values at compile time", () => {
    // @ts-expect-error deny takes a list of rules
    const wrong: ClaudeSettings = { permissions: { deny: "Bash" } };
    expect(agentOptionsIssues({ settings: wrong })).toHaveLength(1);
  });
});
