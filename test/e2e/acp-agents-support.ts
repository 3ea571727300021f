/**
 * A minimal ACP client for the testing kit's agent smoke tests: spawns an agent from an
 * `AcpAgentEnv` in its own process group, speaks ACP over its stdio with `@agentclientprotocol/sdk`,
 * records every `session/update`, answers permission requests by option kind and serves `fs/*`
 * inside the session's working directory. Not the SDK's ACP backend: just enough to prove that each
 * agent runs offline against the fakes.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientContext,
  client,
  ndJsonStream,
  RequestError,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { AcpAgentEnv } from "../../src/testing/index.js";

/** How a permission request is answered: by the kind of option to pick. */
export type PermissionAnswer = "allow_once" | "reject_once";

/** A spawned agent with an open ACP connection. */
export interface AcpAgentRun extends AsyncDisposable {
  /** Every `session/update` received, in order. */
  updates: SessionUpdate[];
  /** Every permission request received. */
  permissions: RequestPermissionRequest[];
  /** Every `fs/write_text_file` path written. */
  writes: string[];
  /** stderr of the agent so far (for failure messages). */
  stderr(): string;
  /** The agent process. */
  child: ChildProcess;
  /** Runs `op` with the ACP client context (the connection stays open until disposal). */
  ctx: ClientContext;
  /** Sets how the next permission requests are answered. */
  answerPermissions(answer: PermissionAnswer): void;
  /** Kills the process group and waits for the exit. */
  close(): Promise<void>;
}

/** Kills a detached child's whole process group (npm launchers and relaunchers included). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Agents still running: killed on process exit too, so a worker torn down mid-test leaves none behind. */
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) killGroup(child);
});

function inside(cwd: string, path: string): boolean {
  const rel = relative(cwd, resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Spawns the agent and opens an ACP connection (not yet initialized).
 *
 * @param agentEnv - From `createAcpAgentEnv`.
 */
export async function startAcpAgent(agentEnv: AcpAgentEnv): Promise<AcpAgentRun> {
  const child = spawn(agentEnv.command, agentEnv.args, {
    cwd: agentEnv.cwd,
    env: agentEnv.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (d: string) => {
    stderr = (stderr + d).slice(-20_000);
  });
  live.add(child);
  const exited = new Promise<void>((done) => {
    const gone = (): void => {
      live.delete(child);
      done();
    };
    child.once("exit", gone);
    // A failed spawn emits "error" and never "exit".
    child.once("error", gone);
  });
  const updates: SessionUpdate[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const writes: string[] = [];
  let answer: PermissionAnswer = "allow_once";

  const app = client({ name: "code-agent-sdk-acp-smoke" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      const option =
        params.options.find((o) => o.kind === answer) ??
        params.options.find((o) => o.kind.startsWith(answer.split("_")[0]!));
      if (!option) return { outcome: { outcome: "cancelled" } };
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest("fs/read_text_file", async ({ params }) => {
      if (!inside(agentEnv.cwd, params.path))
        throw RequestError.invalidParams(undefined, "outside the working directory");
      try {
        return { content: await readFile(params.path, "utf8") };
      } catch {
        throw RequestError.resourceNotFound(params.path);
      }
    })
    .onRequest("fs/write_text_file", async ({ params }) => {
      if (!inside(agentEnv.cwd, params.path))
        throw RequestError.invalidParams(undefined, "outside the working directory");
      await mkdir(dirname(params.path), { recursive: true });
      await writeFile(params.path, params.content);
      writes.push(params.path);
      return {};
    })
    .onRequest("*", ({ method }) => {
      throw RequestError.methodNotFound(method);
    })
    .onNotification("*", () => {});

  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const close = async (): Promise<void> => {
    connection.close();
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
    // Whatever the agent started in its group (shells, relaunched children) goes too.
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is empty.
    }
  };
  return {
    updates,
    permissions,
    writes,
    stderr: () => stderr,
    child,
    ctx: connection.agent,
    answerPermissions: (a) => {
      answer = a;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The text of the agent's message chunks among `updates`. */
export function agentText(updates: readonly SessionUpdate[]): string {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "",
    )
    .join("");
}

/** Initializes with fs capabilities and opens a session in the env's cwd. */
export async function openSession(run: AcpAgentRun, cwd: string): Promise<string> {
  await run.ctx.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    clientInfo: { name: "code-agent-sdk-acp-smoke", version: "0" },
  });
  const session = await run.ctx.request("session/new", { cwd, mcpServers: [] });
  return session.sessionId;
}
