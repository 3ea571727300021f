/**
 * `settings` and `managedSettings` (typed from the CLI's settings schema) against the real claude
 * 2.1.330 offline: typed fields take effect, and a field this SDK does not know reaches the CLI
 * unchanged with one warning.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { query } from "../../src/index.js";
import { collect, results, testBed } from "./support.js";

const bash = (command: string) => ({ toolUse: { name: "Bash", input: { command, description: "run" } } });

/** What the CLI sent back to the model as the result of the turn's tool call. */
function toolResultOf(request: { body: { messages?: unknown } } | undefined): string {
  return JSON.stringify(request?.body.messages ?? []);
}

describe("settings and managedSettings with claude", () => {
  it("settings: env reaches the tools and permissions.allow lets Bash run without asking", async () => {
    await using bed = await testBed([bash('echo "mark=$CAS_SETTINGS_MARK"'), { text: "done" }]);
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "run it",
        options: bed.options({
          settings: { env: { CAS_SETTINGS_MARK: "from-settings" }, permissions: { allow: ["Bash"] } },
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: "deny", message: "the allow rule should have answered" };
          },
        }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "done" });
    expect(toolResultOf(bed.model.turnRequests[1])).toContain("mark=from-settings");
    expect(asked).toEqual([]);
  });

  it("managedSettings: permissions.deny wins over an allow rule in settings", async () => {
    await using bed = await testBed([bash("echo should-not-run"), { text: "done" }]);
    const messages = await collect(
      query({
        prompt: "run it",
        options: bed.options({
          settings: { permissions: { allow: ["Bash"] } },
          managedSettings: { permissions: { deny: ["Bash"] } },
        }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "done" });
    const history = toolResultOf(bed.model.turnRequests[1]);
    expect(history).toContain('"is_error":true');
    expect(history).not.toContain("should-not-run\\n");
    // A deny rule for the whole tool takes it away from the model.
    expect(history).toContain("Bash is disabled for this session");
    const tools = (bed.model.turnRequests[0]?.body.tools ?? []) as { name: string }[];
    expect(tools.map((t) => t.name)).not.toContain("Bash");
    expect(tools.map((t) => t.name)).toContain("Read");
  });

  it("an unknown nested field reaches the CLI unchanged, with one warning", async () => {
    await using bed = await testBed([bash("echo unknown-ok"), { text: "done" }, { text: "again" }]);
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on("warning", listen);
    const argvs: string[][] = [];
    const settings = {
      permissions: { allow: ["Bash"], casFuturePermission: true },
      casFutureSetting: { nested: 1 },
    };
    const run = (prompt: string) =>
      collect(
        query({
          prompt,
          options: bed.options({
            settings,
            spawnClaudeCodeProcess: (options): ChildProcessWithoutNullStreams => {
              argvs.push(options.args);
              return spawn(options.command, options.args, {
                cwd: options.cwd,
                env: options.env,
                stdio: "pipe",
              });
            },
          }),
        }),
      );
    try {
      expect(results(await run("first"))[0]).toMatchObject({ isError: false, result: "done" });
      expect(results(await run("second"))[0]).toMatchObject({ isError: false, result: "again" });
      // Warnings are delivered on a later tick; both queries have ended by now, many ticks later.
    } finally {
      process.off("warning", listen);
    }
    expect(toolResultOf(bed.model.turnRequests[1])).toContain("unknown-ok");
    for (const argv of argvs) {
      expect(JSON.parse(argv[argv.indexOf("--settings") + 1]!)).toEqual(settings);
    }
    const ours = warnings.filter(
      (w) => (w as { code?: string }).code === "CODE_AGENT_SDK_UNKNOWN_NESTED_FIELD",
    );
    expect(ours).toHaveLength(1);
    expect(ours[0]?.message).toContain("settings.casFutureSetting, settings.permissions.casFuturePermission");
  });
});
