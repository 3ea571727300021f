/**
 * The ACP client's terminals: a command that leaves a `setsid` grandchild holding the output pipe
 * neither holds back its exit nor the session's close (and nothing is left running); a session has
 * at most `maxTerminals`; terminal/create and fs/write_text_file are put to `canUseTool` (over the
 * wire, against test/fixtures/acp/client-requests-agent.mjs).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RequestError } from "@agentclientprotocol/sdk";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Terminals } from "../../../src/backends/acp/terminals.js";
import { Workspace } from "../../../src/backends/acp/workspace.js";
import {
  type AcpAgentOptions,
  AgentSdkClient,
  type CanUseTool,
  type Message,
  query,
} from "../../../src/index.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";
import { eventually, isAlive, killQuietly } from "../../lifecycle/support/processes.js";

const AGENT = fileURLToPath(new URL("../../fixtures/acp/client-requests-agent.mjs", import.meta.url));
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
/** A grandchild in a session of its own that keeps the terminal's stdout and stderr open. */
const SETSID = "setsid sh -c 'echo $$ > sleeper.pid; exec sleep 1000' & echo started";

let root: string;
let agent: string;
let sleepers: number[] = [];

beforeAll(() => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-term-agent-")));
  agent = join(dir, "agent");
  writeFileSync(agent, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(AGENT).href)});\n`);
  chmodSync(agent, 0o755);
  return () => rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-term-")));
  sleepers = [];
});
afterEach(() => {
  for (const pid of sleepers) killQuietly(pid);
  rmSync(root, { recursive: true, force: true });
  expect(liveGroupCount()).toBe(0);
});

/** The pid the setsid grandchild wrote, once it has. */
async function sleeperPid(): Promise<number> {
  const file = join(root, "sleeper.pid");
  expect(await eventually(() => existsSync(file) && readFileSync(file, "utf8").trim() !== "", 10_000)).toBe(
    true,
  );
  const pid = Number(readFileSync(file, "utf8").trim());
  sleepers.push(pid);
  return pid;
}

/** Milliseconds `promise` takes; fails when over `boundMs`. */
async function timed(boundMs: number, promise: Promise<unknown>): Promise<number> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not settle within ${boundMs} ms`)), boundMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return Math.round(performance.now() - started);
}

describe("a setsid grandchild holding the pipe", () => {
  it("the exit is reported once the output goes quiet; closeAll settles and kills the grandchild", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), ENV, { outputIdleMs: 300 });
    const id = await terminals.create({ command: SETSID });
    const pid = await sleeperPid();
    let exit: unknown;
    const exitMs = await timed(
      10_000,
      terminals.waitForExit(id).then((e) => (exit = e)),
    );
    expect(exit).toEqual({ exitCode: 0, signal: null });
    expect(terminals.output(id)).toMatchObject({ output: "started\n", exitStatus: { exitCode: 0 } });
    expect(isAlive(pid)).toBe(true);
    const closeMs = await timed(10_000, terminals.closeAll());
    expect(await eventually(() => !isAlive(pid), 5_000)).toBe(true);
    console.log(
      `acp terminals | setsid grandchild | exit reported after ${exitMs} ms, closeAll ${closeMs} ms | left 0`,
    );
  });

  it("release of a command still running settles and leaves nothing, the grandchild included", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), ENV);
    const id = await terminals.create({ command: `${SETSID}; sleep 1000` });
    const pid = await sleeperPid();
    const waiting = terminals.waitForExit(id);
    await timed(10_000, terminals.release(id));
    expect((await timed(5_000, waiting)) >= 0).toBe(true);
    expect(await eventually(() => !isAlive(pid), 5_000)).toBe(true);
  });
});

describe("working directory", () => {
  it("a cwd reached through a link inside runs in its target; one through a link out is refused", async () => {
    mkdirSync(join(root, "real"));
    symlinkSync("real", join(root, "alias"));
    symlinkSync(tmpdir(), join(root, "out"));
    const terminals = new Terminals(new Workspace(root, 1024), ENV);
    const id = await terminals.create({ command: "pwd -P", cwd: join(root, "alias") });
    await terminals.waitForExit(id);
    expect(terminals.output(id).output).toBe(`${join(root, "real")}\n`);
    const refused = await terminals
      .create({ command: "touch escaped", cwd: join(root, "out") })
      .catch((e) => e);
    expect((refused as RequestError).data).toMatchObject({ reason: "outside" });
    await terminals.closeAll();
  });
});

describe("limits and authorization", () => {
  it("at most maxTerminals at once: the next is refused with reason terminal-limit until one is released", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), ENV, { maxTerminals: 2 });
    const a = await terminals.create({ command: "sleep 1000" });
    await terminals.create({ command: "sleep 1000" });
    const refused = await terminals.create({ command: "touch third" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RequestError);
    expect((refused as RequestError).data).toMatchObject({ reason: "terminal-limit", limit: 2 });
    await terminals.release(a);
    const c = await terminals.create({ command: "true" });
    await terminals.waitForExit(c);
    await terminals.closeAll();
    expect(existsSync(join(root, "third"))).toBe(false);
  });

  it("authorize is asked before the command starts; its refusal reaches the caller and nothing runs", async () => {
    const asked: unknown[] = [];
    const terminals = new Terminals(new Workspace(root, 1024), ENV, {
      authorize: async (request) => {
        asked.push(request);
        throw RequestError.invalidRequest({ reason: "permission-denied" }, "no");
      },
    });
    const error = await terminals.create({ command: "touch ran", cwd: root }).catch((e: unknown) => e);
    expect((error as RequestError).data).toMatchObject({ reason: "permission-denied" });
    expect(asked).toEqual([{ command: "touch ran", args: [], cwd: root, env: {} }]);
    expect(existsSync(join(root, "ran"))).toBe(false);
    expect(terminals.size).toBe(0);
  });
});

function options(extra: Omit<AcpAgentOptions, "backend"> = {}): AcpAgentOptions {
  return { backend: "acp", cwd: root, env: ENV, ...extra, acp: { command: agent, ...extra.acp } };
}

/** The agent's answers to its own requests, as it said them back. */
function answers(
  messages: Message[],
): { result?: unknown; error?: { code: number; data?: Record<string, unknown> } }[] {
  const text = messages
    .flatMap((m) => (m.type === "assistant" ? m.content : []))
    .map((b) => (b.type === "text" ? b.text : ""))
    .join("");
  return JSON.parse(text);
}

async function collect(iterable: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of iterable) out.push(m);
  return out;
}

describe("over the wire: terminal/create and fs/write_text_file reach canUseTool", () => {
  it("a deny-all canUseTool is asked for both; nothing runs, nothing is written, the agent gets permission-denied", async () => {
    const asked: { name: string; input: Record<string, unknown> }[] = [];
    const canUseTool: CanUseTool = async (name, input) => {
      asked.push({ name, input });
      return { behavior: "deny", message: "not on this host" };
    };
    const requests = [
      { method: "terminal/create", params: { command: "touch ran.txt" } },
      { method: "fs/write_text_file", params: { path: join(root, "w.txt"), content: "x" } },
    ];
    const messages = await collect(
      query({ prompt: JSON.stringify(requests), options: options({ canUseTool }) }),
    );
    expect(asked).toEqual([
      { name: "terminal/create", input: { command: "touch ran.txt", args: [], cwd: root, env: {} } },
      {
        name: "fs/write_text_file",
        input: { file_path: join(root, "w.txt"), path: join(root, "w.txt"), content: "x" },
      },
    ]);
    expect(existsSync(join(root, "ran.txt"))).toBe(false);
    expect(existsSync(join(root, "w.txt"))).toBe(false);
    for (const answer of answers(messages)) {
      expect(answer.error?.data).toMatchObject({ reason: "permission-denied", message: "not on this host" });
    }
  });

  it("without canUseTool both are refused; a command the agent's own permission request got allowed is not asked twice", async () => {
    const none = await collect(
      query({
        prompt: JSON.stringify([{ method: "terminal/create", params: { command: "touch nobody.txt" } }]),
        options: options(),
      }),
    );
    expect(answers(none)[0]?.error?.data).toMatchObject({ reason: "permission-denied" });
    expect(existsSync(join(root, "nobody.txt"))).toBe(false);

    const asked: string[] = [];
    const canUseTool: CanUseTool = async (name) => {
      asked.push(name);
      return { behavior: "allow" };
    };
    const requests = [
      {
        method: "session/request_permission",
        params: {
          toolCall: {
            toolCallId: "t1",
            title: "touch allowed.txt",
            kind: "execute",
            rawInput: { command: "touch allowed.txt" },
          },
          options: [
            { optionId: "yes", name: "Allow", kind: "allow_once" },
            { optionId: "no", name: "Reject", kind: "reject_once" },
          ],
        },
      },
      { method: "terminal/create", params: { command: "touch allowed.txt" } },
      { method: "terminal/create", params: { command: "touch allowed.txt" } },
    ];
    const messages = await collect(
      query({ prompt: JSON.stringify(requests), options: options({ canUseTool }) }),
    );
    const [permission, first, second] = answers(messages);
    expect(permission?.result).toMatchObject({ outcome: { outcome: "selected", optionId: "yes" } });
    expect(first?.result).toMatchObject({ terminalId: expect.any(String) });
    expect(second?.result).toMatchObject({ terminalId: expect.any(String) });
    // The permission request, then only the second terminal (the first was what had been allowed).
    expect(asked).toEqual(["Bash", "terminal/create"]);
  });

  it("a terminal whose setsid grandchild holds the pipe: wait_for_exit answers, close() settles, nothing is left", async () => {
    const canUseTool: CanUseTool = async () => ({ behavior: "allow" });
    const client = new AgentSdkClient(options({ canUseTool, closeGraceMs: 1_000 }));
    await client.connect();
    await client.query(
      JSON.stringify([
        { method: "terminal/create", params: { command: SETSID } },
        { method: "terminal/wait_for_exit", params: { terminalId: "term-1" } },
        {
          method: "terminal/create",
          params: { command: `${SETSID.replace("sleeper.pid", "sleeper2.pid")}; sleep 1000` },
        },
      ]),
    );
    const turn = await collect(client.receiveResponse());
    const [, exit] = answers(turn);
    expect(exit?.result).toEqual({ exitCode: 0, signal: null });
    const first = await sleeperPid();
    await eventually(() => existsSync(join(root, "sleeper2.pid")), 10_000);
    const second = Number(readFileSync(join(root, "sleeper2.pid"), "utf8").trim());
    sleepers.push(second);
    const closeMs = await timed(15_000, client.disconnect());
    expect(await eventually(() => !isAlive(first) && !isAlive(second), 5_000)).toBe(true);
    console.log(`acp terminals | session close with setsid grandchildren | close ${closeMs} ms | left 0`);
  });
});
