/**
 * Kimi Code 2.1.0's modes through setPermissionMode, against the real agent offline (Node >= 22.19):
 * its `yolo` ("Ask When Needed") still asks before a dangerous command, its `auto` ("Never Ask")
 * asks nothing — so bypassPermissions is its `auto`, whatever its ACP mode descriptions say (they
 * call yolo "Auto-approve everything" and auto "Auto-approve safe operations"). Nothing dangerous
 * runs: the client terminal the command would run in is refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AgentSdkClient, type CanUseTool } from "../../src/index.js";
import {
  ACP_AGENTS,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { collect, results, runningAgents } from "./acp-support.js";

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

const reason = acpAgentUnavailableReason("kimi");
const preset = ACP_AGENTS.kimi;

describe.skipIf(reason !== undefined)(
  `${preset.displayName} ${preset.testedVersion} modes${reason ? ` (skipped: ${reason})` : ""}`,
  () => {
    it("bypassPermissions (its auto) asks nothing for `rm -rf`; its yolo asks", {
      timeout: 180_000,
    }, async () => {
      await using model = await startFakeModelForAgent("kimi", { defaultTurn: { text: "OK" } });
      await using env = createAcpAgentEnv("kimi", { baseUrl: model.url });
      // Not a temp path (Kimi deems `rm -rf` of those safe), and never run: terminal/create is refused.
      const dangerous = "rm -rf /nonexistent-code-agent-sdk-kimi-mode-test";
      const asked: string[] = [];
      const canUseTool: CanUseTool = async (name) => {
        asked.push(name);
        return { behavior: "deny", message: "not in this test" };
      };
      await using client = new AgentSdkClient({
        backend: "acp",
        acp: { agent: "kimi" },
        cwd: env.cwd,
        env: env.env,
        inheritEnv: false,
        canUseTool,
      });
      await client.connect();

      await client.setPermissionMode("bypassPermissions");
      model.push({ shell: dangerous }, { text: "tried" });
      await client.query("RUN: bypass");
      expect(results(await collect(client.receiveResponse()))).toHaveLength(1);
      // Kimi asked nothing; only this client's terminal gate saw the command.
      expect(asked).toEqual(["terminal/create"]);

      asked.length = 0;
      // Its own mode id (setPermissionMode takes one: the type names ours).
      await client.setPermissionMode("yolo" as Parameters<AgentSdkClient["setPermissionMode"]>[0]);
      model.push({ shell: dangerous }, { text: "tried" });
      await client.query("RUN: yolo");
      expect(results(await collect(client.receiveResponse()))).toHaveLength(1);
      expect(asked).toEqual(["Bash"]);
    });
  },
);
