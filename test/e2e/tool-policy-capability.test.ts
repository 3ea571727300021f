/**
 * `capabilities.toolPolicy` tells the truth (issue 28, item 1): on Codex with `canUseTool` (approval
 * policy `untrusted`, the one that asks most) commands — even `cat` — are asked, but an MCP tool call
 * runs without asking — `"asked-calls"` — while on Claude the read Claude Code would run by itself
 * reaches the policy — `"every-call"`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentSdkClient, type Message } from "../../src/index.js";
import { codexBed, ECHO_MCP } from "./codex-support.js";
import { collect, testBed } from "./support.js";

const SECRET = "SECRET-CAPABILITY-28";

function toolResults(messages: Message[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
  );
}

describe("capabilities.toolPolicy", () => {
  it('codex: "asked-calls" — commands are asked (untrusted), an MCP tool call runs without asking', async () => {
    await using bed = await codexBed([
      { execCommand: { cmd: "cat notes.txt" } },
      { mcpCall: { server: "echo", tool: "echo", arguments: { text: SECRET } } },
      { text: "done" },
    ]);
    writeFileSync(join(bed.cwd, "notes.txt"), `${SECRET}\n`);
    const asked: string[] = [];
    await using client = new AgentSdkClient(
      bed.options({
        mcpServers: { echo: { command: process.execPath, args: [ECHO_MCP] } },
        canUseTool: (name) => {
          asked.push(name);
          return { behavior: "deny", message: "nothing" };
        },
      }),
    );
    expect(client.capabilities.toolPolicy).toBe("asked-calls");
    await client.connect();
    await client.query("read the notes, then echo");
    const messages = await collect(client.receiveResponse());
    // The command was put to the policy and denied; the MCP call escaped it and ran.
    expect(asked).toEqual(["Bash"]);
    const outcomes = toolResults(messages);
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toMatchObject({ isError: true });
    expect(JSON.stringify(outcomes[1])).toContain(SECRET);
  });

  it('claude: "every-call" — the same read reaches the policy and is denied', async () => {
    await using bed = await testBed([]);
    writeFileSync(join(bed.cwd, "notes.txt"), `${SECRET}\n`);
    bed.model.push({ toolUse: { name: "Bash", input: { command: "cat notes.txt" } } }, { text: "denied" });
    const asked: string[] = [];
    await using client = new AgentSdkClient(
      bed.options({
        canUseTool: (name) => {
          asked.push(name);
          return { behavior: "deny", message: "nothing" };
        },
      }),
    );
    expect(client.capabilities.toolPolicy).toBe("every-call");
    await client.connect();
    await client.query("read the notes");
    const messages = await collect(client.receiveResponse());
    expect(asked).toEqual(["Bash"]);
    expect(JSON.stringify(messages)).not.toContain(SECRET);
  });
});
