// A stand-in ACP agent for the session controls (setModel, setPermissionMode, session/close,
// session/resume, session/list, session/fork): what it advertises comes from CONFIG_AGENT_PROFILE
// (JSON: `caps` merged into agentCapabilities, `session` merged into the session/new, load, resume
// and fork answers, `closeHangs`, `optionsOnPrompt`: config options announced by
// `config_option_update` during each prompt; `listPages`: the session/list answers as sent, the
// first for no cursor, page N for cursor "page-N"; `listHangs`: session/list is never answered;
// `listExitsAt`: the agent exits when asked for that page; `forkResult`: the session/fork answer as
// sent), and every request it gets is written to CONFIG_AGENT_RECORD (a JSON array of
// { method, params }). "list-requested <cursor>" goes to stderr for each session/list it gets.
import { renameSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const profile = JSON.parse(process.env.CONFIG_AGENT_PROFILE ?? "{}");
const requests = [];
let sessionId = `config-session-${process.pid}`;
const session = structuredClone(profile.session ?? {});
const send = (obj) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...obj })}\n`);
const save = () => {
  // Written aside and renamed: the agent may be killed mid-write (close() ends its group).
  if (process.env.CONFIG_AGENT_RECORD) {
    writeFileSync(`${process.env.CONFIG_AGENT_RECORD}.tmp`, JSON.stringify(requests));
    renameSync(`${process.env.CONFIG_AGENT_RECORD}.tmp`, process.env.CONFIG_AGENT_RECORD);
  }
};

const rl = createInterface({ input: process.stdin });
rl.on("line", (text) => {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return;
  }
  if (msg.method === undefined) return;
  requests.push({ method: msg.method, params: msg.params });
  save();
  handle(msg);
});
rl.on("close", () => process.exit(0));

function handle({ id, method, params }) {
  switch (method) {
    case "initialize":
      return send({
        id,
        result: {
          protocolVersion: 1,
          agentCapabilities: { loadSession: true, promptCapabilities: {}, ...profile.caps },
          agentInfo: { name: "config-agent", version: "0.0.1" },
          authMethods: [],
        },
      });
    case "session/new":
      return send({ id, result: { sessionId, ...session } });
    case "session/load":
    case "session/resume":
      sessionId = params.sessionId;
      return send({ id, result: { ...session } });
    case "session/fork":
      if (profile.forkResult) return send({ id, result: profile.forkResult });
      sessionId = `forked-from-${params.sessionId}`;
      return send({ id, result: { sessionId, ...session } });
    case "session/list": {
      const cursor = params?.cursor ?? null;
      process.stderr.write(`list-requested ${cursor}\n`);
      const page = cursor === null ? 0 : Number(String(cursor).replace("page-", ""));
      if (profile.listHangs) return;
      if (profile.listExitsAt === page) process.exit(0);
      const result = (profile.listPages ?? [{ sessions: [] }])[page];
      if (result === undefined)
        return send({ id, error: { code: -32602, message: `no page ${String(cursor)}` } });
      return send({ id, result });
    }
    case "session/set_config_option": {
      const option = (session.configOptions ?? []).find((o) => o.id === params.configId);
      if (!option)
        return send({ id, error: { code: -32602, message: `no config option ${params.configId}` } });
      option.currentValue = params.value;
      return send({ id, result: { configOptions: session.configOptions } });
    }
    case "session/set_mode":
    case "session/set_model":
      return send({ id, result: {} });
    case "session/close":
      if (profile.closeHangs) return;
      return send({ id, result: {} });
    case "session/prompt":
      if (profile.optionsOnPrompt) {
        // As an agent whose choices change mid-session (`config_option_update`).
        session.configOptions = profile.optionsOnPrompt;
        send({
          method: "session/update",
          params: {
            sessionId,
            update: { sessionUpdate: "config_option_update", configOptions: session.configOptions },
          },
        });
      }
      send({
        method: "session/update",
        params: {
          sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ok" } },
        },
      });
      return send({ id, result: { stopReason: "end_turn" } });
    default:
      if (id !== undefined) send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
}
