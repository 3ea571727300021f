/**
 * The resumed-cost baseline over a scripted transport: a resumed session asks `get_usage` once
 * before its first turn and measures that turn from the answer; a CLI that cannot answer leaves
 * the turn's cost `null` (the turn still runs); a new session asks nothing.
 */
import { describe, expect, it } from "vitest";
import { type Message, query, type ResultMessage } from "../../../src/index.js";
import { resultLine, ScriptedTransport } from "../support/scripted-transport.js";

const RESUMED = "8c5056df-eaa9-4777-afd7-7b84875eae92";

/** A CLI answering initialize, get_usage as `usage` says (`"error"`: an error answer), and one result per turn. */
function cli(usage: Record<string, unknown> | "error", totals: number[]): ScriptedTransport {
  return new ScriptedTransport((message, t) => {
    if (message.type === "control_request") {
      const subtype = (message.request as { subtype: string }).subtype;
      const id = message.request_id;
      if (subtype === "initialize") {
        t.emit({
          type: "control_response",
          response: { subtype: "success", request_id: id, response: { pid: 1 } },
        });
      } else if (subtype === "get_usage") {
        t.emit({
          type: "control_response",
          response:
            usage === "error"
              ? { subtype: "error", request_id: id, error: "Unsupported control request subtype: get_usage" }
              : { subtype: "success", request_id: id, response: usage },
        });
      }
      return;
    }
    if (message.type === "user") t.emit({ ...resultLine("ok"), total_cost_usd: totals.shift() });
  });
}

async function resultsOf(transport: ScriptedTransport, resume?: string): Promise<ResultMessage[]> {
  const out: Message[] = [];
  for await (const m of query({ prompt: "hi", options: { transport, ...(resume ? { resume } : {}) } }))
    out.push(m);
  return out.filter((m): m is ResultMessage => m.type === "result");
}

const subtypes = (t: ScriptedTransport) =>
  t.written.map((m) =>
    m.type === "control_request" ? (m.request as { subtype: string }).subtype : String(m.type),
  );

describe("the resumed-cost baseline", () => {
  it("a resumed session asks get_usage before its first turn and measures the turn from it", async () => {
    const transport = cli({ session: { total_cost_usd: 0.2 } }, [0.25]);
    const [result] = await resultsOf(transport, RESUMED);
    expect(subtypes(transport)).toEqual(["initialize", "get_usage", "user"]);
    expect(result).toMatchObject({ totalCostUsd: 0.05, sessionCostUsd: 0.25 });
    expect(result?.raw.total_cost_usd).toBe(0.25);
  });

  it("a CLI that cannot answer get_usage: the turn runs, its cost is null, the running total is kept", async () => {
    const transport = cli("error", [0.25]);
    const [result] = await resultsOf(transport, RESUMED);
    expect(result).toMatchObject({ isError: false, result: "ok", totalCostUsd: null, sessionCostUsd: 0.25 });
  });

  it("a new session asks nothing: its first turn costs the CLI's total", async () => {
    const transport = cli("error", [0.07]);
    const [result] = await resultsOf(transport);
    expect(subtypes(transport)).toEqual(["initialize", "user"]);
    expect(result).toMatchObject({ totalCostUsd: 0.07, sessionCostUsd: 0.07 });
  });
});
