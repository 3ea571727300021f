/**
 * The ACP backend against the real codex-acp adapter (Zed's, 0.16.0; its native binary spawned
 * directly, not through the npm launcher), offline, with the scripted Responses API. Codex runs
 * commands itself (it asks before each, `approval_policy = "untrusted"`); there is no bubblewrap
 * here, so its sandbox is `danger-full-access`.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSdkClient, type CanUseTool, type Message, query, type ResultMessage } from "../../src/index.js";
import {
  assistantText,
  blocks,
  CODEX_ACP_VERSION,
  codexAcpBed,
  collect,
  results,
  runningAgents,
} from "./acp-support.js";

/** Pids whose process group is `pgid` (Linux /proc). */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid;
      } catch {
        return false;
      }
    });
}

function exeOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return "";
  }
}

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

describe(`ACP backend against codex-acp ${CODEX_ACP_VERSION}`, () => {
  it("one-shot text, from the native binary", async () => {
    await using bed = await codexAcpBed([{ text: "hello from codex" }]);
    const q = query({ prompt: "say hello", options: bed.options() });
    const messages: Message[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "system" && m.subtype === "init") {
        const info = await q.serverInfo();
        expect(info?.agentInfo).toMatchObject({ version: CODEX_ACP_VERSION });
        // The platform package's binary itself, so a signal to the group reaches the agent.
        if (process.platform === "linux" && q.pid !== undefined) {
          expect(readlinkSync(`/proc/${q.pid}/exe`)).toMatch(/codex-acp-linux-[^/]+\/bin\/codex-acp$/);
        }
      }
    }
    expect(assistantText(messages)).toBe("hello from codex");
    expect(results(messages)[0]).toMatchObject({
      subtype: "success",
      isError: false,
      result: "hello from codex",
    });
  });

  it.runIf(process.platform === "linux")(
    "through codex-acp's npm launcher (which does not pass SIGTERM on), closing still ends the native agent: the whole group goes",
    async () => {
      await using bed = await codexAcpBed([{ stall: true, text: "working" }]);
      const launcher = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "codex-acp");
      await using client = new AgentSdkClient(
        bed.options({ acp: { command: launcher }, includePartialMessages: true }),
      );
      await client.connect();
      await client.query("SLOW");
      for await (const m of client.receiveResponse()) if (m.type === "stream_event") break;
      const group = client.pid ?? 0;
      const members = groupMembers(group);
      // The launcher and the native binary it started with spawnSync.
      expect(members.some((pid) => /codex-acp-linux-[^/]+\/bin\/codex-acp$/.test(exeOf(pid)))).toBe(true);
      await client.disconnect();
      expect(members.filter(isRunning)).toEqual([]);
    },
  );

  it("an allowed command runs; a denied one does not, and codex ends that turn as cancelled", async () => {
    await using bed = await codexAcpBed([
      { execCommand: { cmd: "echo allow-ok > allow.txt" } },
      { text: "ran it" },
      { execCommand: { cmd: "echo deny-ok > deny.txt" } },
      { text: "was refused" },
    ]);
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (name, input) => {
      asked.push(name);
      return JSON.stringify(input).includes("deny-ok")
        ? { behavior: "deny", message: "no" }
        : { behavior: "allow" };
    };
    await using client = new AgentSdkClient(bed.options({ canUseTool }));
    await client.connect();
    await client.query("allow this");
    const allowed = await collect(client.receiveResponse());
    expect(readFileSync(join(bed.cwd, "allow.txt"), "utf8")).toBe("allow-ok\n");
    expect(results(allowed)[0]).toMatchObject({ isError: false });
    expect(blocks(allowed).some((b) => b.type === "tool_use" && b.name === "Bash")).toBe(true);

    await client.query("deny this");
    const denied = await collect(client.receiveResponse());
    expect(existsSync(join(bed.cwd, "deny.txt"))).toBe(false);
    expect(results(denied)[0]).toMatchObject({ stopReason: "cancelled", isError: true });
    expect(asked).toEqual(["Bash", "Bash"]);
  });

  it("interrupt() mid-turn cancels it; the next turn runs in the same session", async () => {
    await using bed = await codexAcpBed([{ stall: true, text: "working on it" }, { text: "fresh turn" }]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    await client.connect();
    await client.query("SLOW");
    const turn: Message[] = [];
    for await (const m of client.receiveResponse()) {
      turn.push(m);
      if (m.type === "stream_event") await client.interrupt();
    }
    expect(turn.at(-1) as ResultMessage).toMatchObject({
      stopReason: "cancelled",
      terminalReason: "interrupted",
    });
    await client.query("again");
    expect(assistantText(await collect(client.receiveResponse()))).toBe("fresh turn");
  });

  it("multi-turn and session/load: the loaded session's next request carries the history", async () => {
    await using bed = await codexAcpBed([{ text: "one" }, { text: "two" }, { text: "three" }]);
    let sessionId: string | undefined;
    {
      await using client = new AgentSdkClient(bed.options());
      await client.connect();
      await client.query("first");
      await collect(client.receiveResponse());
      await client.query("second");
      const turn = await collect(client.receiveResponse());
      expect(assistantText(turn)).toBe("two");
      sessionId = results(turn)[0]?.sessionId;
    }
    await using client = new AgentSdkClient(bed.options({ resume: sessionId }));
    await client.connect();
    await client.query("third");
    const turn = await collect(client.receiveResponse());
    expect(results(turn)[0]?.result).toBe("three");
    const input = JSON.stringify(bed.api.turnRequests[2]?.body?.input);
    expect(input).toContain("first");
    expect(input).toContain("two");
  });
});
