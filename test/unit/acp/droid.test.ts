/**
 * Factory Droid 0.225.2 (`droid exec --output-format acp`): the preset finds its platform package
 * installed without the `@factory/cli` launcher package (0.225.1's launcher needs a platform package
 * missing on npm), its tool calls read in the unified vocabulary, and our permission modes on its
 * autonomy levels. The notifications and the session/new answer are the ones the real binary sent
 * against the kit's fake model (loopback, Airgap Mode), paths shortened.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ACP_PRESETS, resolveAcpCommand } from "../../../src/backends/acp/presets.js";
import { AcpSessionConfig } from "../../../src/backends/acp/session-config.js";
import { AcpUpdateMapper } from "../../../src/backends/acp/updates.js";
import { CliNotFoundError, InvalidOptionsError, type Message } from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "cas-acp-droid-"));
  dirs.push(dir);
  return dir;
}

/** A platform package `name` holding an executable `bin/droid`, in `root`'s node_modules. */
function platformPackage(root: string, name: string): string {
  const dir = join(root, "node_modules", ...name.split("/"));
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, main: "bin/droid" }));
  const bin = join(dir, "bin", process.platform === "win32" ? "droid.exe" : "droid");
  writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  return bin;
}

const platform = `${process.platform}-${process.arch}`;

describe("Factory Droid preset", () => {
  it("is `droid exec --output-format acp`, the platform package's binary (installed here without @factory/cli)", () => {
    expect(ACP_PRESETS.droid).toMatchObject({
      packageName: "@factory/cli",
      bin: "droid",
      args: ["exec", "--output-format", "acp"],
    });
    const found = resolveAcpCommand({ agent: "droid" }, undefined, { env: {} });
    expect(found.command).toMatch(/node_modules\/@factory\/cli-linux-x64(-baseline)?\/bin\/droid$/);
    expect(found.args).toEqual(["exec", "--output-format", "acp"]);
    expect(found.name).toBe("droid");
  });

  it("finds a platform package installed on its own, the baseline build too", () => {
    const root = scratch();
    writeFileSync(join(root, "package.json"), "{}");
    const baseline = platformPackage(root, `@factory/cli-${platform}-baseline`);
    const ctx = { env: {}, resolveFrom: [join(root, "package.json")] };
    expect(resolveAcpCommand({ agent: "droid" }, undefined, ctx).command).toBe(baseline);
    // Both: the regular build first on a CPU with AVX2 (here), the baseline without.
    const regular = platformPackage(root, `@factory/cli-${platform}`);
    expect([regular, baseline]).toContain(resolveAcpCommand({ agent: "droid" }, undefined, ctx).command);
  });

  it("falls back to `droid` on PATH, and otherwise names what to install", () => {
    const root = scratch();
    writeFileSync(join(root, "package.json"), "{}");
    const bin = join(root, "bin");
    mkdirSync(bin);
    const ctx = { env: { PATH: bin }, resolveFrom: [join(root, "package.json")] };
    let error: unknown;
    try {
      resolveAcpCommand({ agent: "droid" }, undefined, ctx);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliNotFoundError);
    expect((error as CliNotFoundError).searched).toContain(join(bin, "droid"));
    expect((error as Error).message).toContain("npm install @factory/cli");
    writeFileSync(join(bin, "droid"), "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveAcpCommand({ agent: "droid" }, undefined, ctx)).toEqual({
      command: join(bin, "droid"),
      args: ["exec", "--output-format", "acp"],
      name: "droid",
    });
  });
});

const W = "/tmp/acp-droid-home-0AWRDD/work";

function mapper() {
  return new AcpUpdateMapper({ sessionId: () => "s-1", model: "droid", includePartialMessages: false });
}
const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "4e42b114-a19c-4c0e-a23a-f37f07ef2826", update: u },
});
const text = (t: string) => [{ type: "content", content: { type: "text", text: t } }];

/** Droid's tool_call announcement, then the canUseTool name/input its permission request gives. */
function call(toolCall: Record<string, unknown>): {
  announced: Message[];
  asked: { name: string; input: Record<string, unknown> };
} {
  const m = mapper();
  m.beginTurn();
  const announced = m.map(update({ sessionUpdate: "tool_call", status: "pending", ...toolCall }));
  const { toolCallId, title, rawInput, kind } = toolCall;
  return { announced, asked: m.toolForPermission({ toolCallId, title, rawInput, kind }, announced) };
}

function toolUse(messages: Message[]): { name: string; input: Record<string, unknown> } | undefined {
  for (const message of messages) {
    if (message.type !== "assistant") continue;
    for (const block of message.content) {
      if (block.type === "tool_use")
        return { name: block.name, input: block.input as Record<string, unknown> };
    }
  }
  return undefined;
}

describe("Factory Droid: tool calls in the unified vocabulary", () => {
  it("Execute is Bash with its command (the risk classification kept beside it)", () => {
    const { announced, asked } = call({
      toolCallId: "call_ec2c8dfad26c8870593aa860",
      title: "`echo shell-out` (low)",
      kind: "execute",
      rawInput: { command: "echo shell-out", riskLevelReason: "a scripted test command", riskLevel: "low" },
    });
    expect(asked).toEqual({
      name: "Bash",
      input: { command: "echo shell-out", riskLevelReason: "a scripted test command", riskLevel: "low" },
    });
    expect(toolUse(announced)).toEqual(asked);
  });

  it("Create and Edit are Edit with file_path (content; old_string / new_string)", () => {
    const created = call({
      toolCallId: "call_e070ce77829380be85794301",
      title: `Create ${W}/b.txt`,
      kind: "edit",
      rawInput: { file_path: `${W}/b.txt`, content: "new\n" },
      content: [{ type: "diff", path: `${W}/b.txt`, oldText: null, newText: "new\n" }],
      locations: [{ path: `${W}/b.txt` }],
    });
    expect(created.asked).toEqual({ name: "Edit", input: { file_path: `${W}/b.txt`, content: "new\n" } });
    const edited = call({
      toolCallId: "call_c0207c65994fe8d6a20bb187",
      title: `Edit \`${W}/a.txt\``,
      kind: "edit",
      rawInput: { file_path: `${W}/a.txt`, old_str: "hello", new_str: "bye" },
      content: [{ type: "diff", path: `${W}/a.txt`, oldText: "hello", newText: "bye" }],
      locations: [{ path: `${W}/a.txt` }],
    });
    expect(edited.asked).toEqual({
      name: "Edit",
      input: {
        file_path: `${W}/a.txt`,
        old_str: "hello",
        new_str: "bye",
        old_string: "hello",
        new_string: "bye",
      },
    });
  });

  it("Read and LS are Read with file_path (LS's directory_path), Grep is Grep with pattern and path", () => {
    const read = call({
      toolCallId: "call_d1011b9ebb7b9e70a640c03a",
      title: `Read ${W}/a.txt`,
      kind: "read",
      rawInput: { file_path: `${W}/a.txt` },
      content: text(`${W}/a.txt`),
      locations: [{ path: `${W}/a.txt`, line: 0 }],
    });
    expect(toolUse(read.announced)).toEqual({ name: "Read", input: { file_path: `${W}/a.txt` } });
    const listed = call({
      toolCallId: "call_a589ea984a776d1425cd1dbb",
      title: `List ${W}`,
      kind: "read",
      rawInput: { directory_path: W },
      content: text(W),
    });
    expect(toolUse(listed.announced)).toEqual({
      name: "Read",
      input: { directory_path: W, file_path: W },
    });
    const grep = call({
      toolCallId: "call_c6c88278fd14c31df27abfee",
      title: `Grep hello in ${W}`,
      kind: "search",
      rawInput: { pattern: "hello", path: W },
      content: text(`hello in ${W}`),
    });
    expect(toolUse(grep.announced)).toEqual({ name: "Grep", input: { pattern: "hello", path: W } });
  });
});

/** The modes of Droid's session/new answer (its `autonomy_level` config option has the same values). */
const modes = [
  { id: "normal", name: "Auto (Off)", description: "Auto-approves only read operations" },
  { id: "spec", name: "Spec", description: "Build feature specs (read-only)" },
  {
    id: "auto-low",
    name: "Auto (Low)",
    description: "Auto-approves file edits and low-risk actions during the session",
  },
  {
    id: "auto-medium",
    name: "Auto (Medium)",
    description: "Auto-approves medium-risk actions during the session",
  },
  { id: "auto-high", name: "Auto (High)", description: "Auto-approves all actions" },
];
const sessionNew = {
  sessionId: "4e42b114-a19c-4c0e-a23a-f37f07ef2826",
  models: {
    availableModels: [{ modelId: "custom:fake-model-0", name: "fake-model", description: null }],
    currentModelId: "custom:fake-model-0",
  },
  modes: { availableModes: modes, currentModeId: "normal" },
  configOptions: [
    {
      id: "autonomy_level",
      name: "Autonomy Level",
      category: "mode",
      type: "select",
      currentValue: "normal",
      options: modes.map((m) => ({ value: m.id, name: m.name })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: "custom:fake-model-0",
      options: [{ value: "custom:fake-model-0", name: "fake-model" }],
    },
    {
      id: "reasoning_effort",
      name: "Reasoning Effort",
      category: "thought_level",
      type: "select",
      currentValue: "none",
      options: ["off", "low", "medium", "high", "none"].map((v) => ({ value: v, name: v })),
    },
  ],
};

describe("Factory Droid: our permission modes on its autonomy levels", () => {
  const config = new AcpSessionConfig("droid");
  config.read(sessionNew);
  const value = (mode: string) => config.modeRequest(mode).params.value;

  it("default, acceptEdits, plan, bypassPermissions → normal, auto-low, spec, auto-high (its config option)", () => {
    expect(config.modeRequest("plan")).toEqual({
      method: "session/set_config_option",
      params: { configId: "autonomy_level", value: "spec" },
    });
    expect(value("default")).toBe("normal");
    expect(value("acceptEdits")).toBe("auto-low");
    expect(value("bypassPermissions")).toBe("auto-high");
    // Its own ids work as they are.
    expect(value("auto-medium")).toBe("auto-medium");
  });

  it("dontAsk and auto have no Droid level: refused with its modes listed", () => {
    for (const mode of ["dontAsk", "auto"]) {
      expect(() => config.modeRequest(mode)).toThrow(InvalidOptionsError);
    }
    expect(() => config.modeRequest("auto")).toThrow(/auto-low \(Auto \(Low\)\)/);
  });

  it("setModel selects by value or by the custom model's display name", () => {
    expect(config.modelRequest("fake-model")).toEqual({
      method: "session/set_config_option",
      params: { configId: "model", value: "custom:fake-model-0" },
    });
    expect(config.report()).toEqual({ setModel: "config_option", setPermissionMode: "config_option" });
  });
});
