/**
 * A chat server on the AI SDK: `streamText(...).pipeUIMessageStreamToResponse()` over any backend,
 * and a page driven by the AI SDK's chat state machine (live tool calls, a stop button, a backend
 * picker). Run it with `npx tsx examples/ai-sdk-chat/server.ts` and open the URL it prints.
 *
 * The browser sends the whole conversation with each message; the server resumes only sessions it
 * handed out itself (`resumeFromHistory`), so a client cannot name another client's session. A
 * closed request (the stop button, a closed tab) aborts the turn, which ends the CLI.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { convertToModelMessages, streamText, type UIMessage } from "ai";
import { build } from "esbuild";
import { type CodeAgentSettings, createCodeAgent } from "../../src/ai-sdk/index.js";

const BACKENDS = ["claude", "codex"] as const;
/** The backends the page offers. */
export type Backend = (typeof BACKENDS)[number];
const MAX_BODY = 4 * 1024 * 1024;

const PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Coding agent chat</title>
<style>
  body { font: 15px system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; }
  .message { padding: .5rem .75rem; margin: .5rem 0; border-radius: .5rem; background: #f3f3f3; }
  .message[data-role=user] { background: #dbeafe; }
  .tool { border-left: 3px solid #a855f7; padding-left: .5rem; margin: .25rem 0; }
  .reasoning { color: #666; font-style: italic; }
  pre { white-space: pre-wrap; margin: .25rem 0; }
  form { display: flex; gap: .5rem; }
  #prompt { flex: 1; }
</style>
<h1>Coding agent chat</h1>
<div id="messages"></div>
<form id="form">
  <select id="backend">${BACKENDS.map((b) => `<option>${b}</option>`).join("")}</select>
  <input id="prompt" autocomplete="off" placeholder="Ask the agent">
  <button id="send">Send</button>
  <button id="stop" type="button">Stop</button>
</form>
<p>Status: <span id="status"></span> <span id="error"></span></p>
<script type="module" src="/app.js"></script>
</html>`;

/** A running chat server. */
export interface ChatServer {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error("request body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

/**
 * Starts the server on 127.0.0.1.
 * @param settings - Each backend's settings (`cwd`, `env`, `canUseTool`, `allowedTools`, …).
 */
export async function startChatServer(
  settings: (backend: Backend) => CodeAgentSettings = () => ({}),
  port = 0,
): Promise<ChatServer> {
  const script = await build({
    entryPoints: [join(dirname(fileURLToPath(import.meta.url)), "page.js")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    logLevel: "silent",
  });
  const app = script.outputFiles[0]?.text ?? "";
  // Sessions this server started: the only ones a client's history may resume.
  const sessions = new Set<string>();
  const agent = createCodeAgent({ resumeFromHistory: (id) => sessions.has(id) });

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: { messages?: unknown; backend?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as typeof body;
    } catch {
      return send(res, 400, "text/plain", "expected a JSON body");
    }
    const backend = BACKENDS.find((b) => b === body.backend);
    if (!backend || !Array.isArray(body.messages))
      return send(res, 400, "text/plain", "expected messages and a backend");
    const controller = new AbortController();
    // The stop button (or a closed tab) closes the request: abort the turn, which ends the CLI.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const result = streamText({
      model: agent(backend, settings(backend)),
      messages: await convertToModelMessages(body.messages as UIMessage[]),
      abortSignal: controller.signal,
      onFinish: ({ providerMetadata }) => {
        const id = providerMetadata?.codeAgent?.sessionId;
        if (typeof id === "string") sessions.add(id);
      },
    });
    result.pipeUIMessageStreamToResponse(res, {
      sendReasoning: true,
      onError: (error) => (error instanceof Error ? error.message : "the agent failed"),
    });
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && path === "/") return send(res, 200, "text/html; charset=utf-8", PAGE);
    if (req.method === "GET" && path === "/app.js") return send(res, 200, "text/javascript", app);
    if (req.method === "POST" && path === "/api/chat") {
      chat(req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, "text/plain", error instanceof Error ? error.message : "failed");
        else res.destroy();
      });
      return;
    }
    send(res, 404, "text/plain", "not found");
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startChatServer(undefined, Number(process.env.PORT ?? 3000));
  console.log(`chat on ${server.url}`);
}
