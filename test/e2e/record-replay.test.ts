/**
 * Record and replay: real claude and codex sessions (offline, scripted models) are recorded with
 * `options.record`, then replayed with `ReplayTransport` — no CLI, no model — and the consumer sees
 * the same unified messages.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type AgentOptions,
  AgentSdkClient,
  type ClaudeAgentOptions,
  type CodexAgentOptions,
  type Message,
  query,
} from "../../src/index.js";
import {
  CODEX_FAKE_API_KEY,
  FAKE_ANTHROPIC_API_KEY,
  REDACTED,
  ReplayError,
  ReplayTransport,
} from "../../src/testing/index.js";
import { RecordingError } from "../../src/transport/index.js";
import { CODEX_CLI_VERSION, codexBed } from "./codex-support.js";
import { CLAUDE_CLI_VERSION, collect, testBed } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "cas-recordings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A secret the user typed into a prompt: it must not reach the file. */
const PROMPT_SECRET = "sk-proj-abcdefghijklmnopqrstuv";

/**
 * Options that make a replay: no environment, just the recording; the CLI path points nowhere, so
 * the replay would fail if anything looked for a CLI.
 */
function replayOptions(file: string, extra: Omit<ClaudeAgentOptions, "backend"> = {}): AgentOptions {
  const transport = ReplayTransport.fromFile(file);
  return {
    ...extra,
    backend: transport.backend,
    transport,
    cliPath: "/nonexistent/cli",
    // The recording says which backend replays it: known only at run time.
  } as AgentOptions;
}

/** The lines of a recording, parsed. */
function recording(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function expectNoSecrets(file: string, secrets: string[]): void {
  const text = readFileSync(file, "utf8");
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/** Consumer code under test: the same function runs live and on the replay. */
async function oneShot(options: AgentOptions, prompt: string): Promise<Message[]> {
  return collect(query({ prompt, options }));
}

describe(`record and replay: claude ${CLAUDE_CLI_VERSION}`, () => {
  it("a one-shot query with a tool call and a permission decision replays to the same messages", async () => {
    const file = join(dir, "claude-query.jsonl");
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch recorded.txt", description: "touch" } } },
      { text: "done recording" },
    ]);
    const decisions: string[] = [];
    const canUseTool: ClaudeAgentOptions["canUseTool"] = async (name, input) => {
      decisions.push(name);
      return { behavior: "allow", updatedInput: input };
    };
    const prompt = `touch a file, my key is ${PROMPT_SECRET}`;
    const live = await oneShot(bed.options({ canUseTool, record: file }), prompt);
    expect(live.find((m) => m.type === "result")).toMatchObject({ result: "done recording" });
    expect(decisions).toEqual(["Bash"]);

    const lines = recording(file);
    expect(lines[0]).toMatchObject({ kind: "header", format: "code-agent-sdk/recording", backend: "claude" });
    const kinds = new Set(lines.map((l) => l.kind));
    expect([...kinds]).toEqual(expect.arrayContaining(["out", "in", "end-input", "end"]));
    expect(lines.slice(1).every((l) => typeof l.t === "number")).toBe(true);
    expectNoSecrets(file, [PROMPT_SECRET, FAKE_ANTHROPIC_API_KEY]);
    expect(readFileSync(file, "utf8")).toContain(REDACTED);

    const replayedDecisions = decisions.splice(0);
    const replayed = await oneShot(replayOptions(file, { canUseTool }), prompt);
    expect(replayed).toEqual(live);
    // The consumer's callback ran again on the replay, with the same question.
    expect(decisions).toEqual(replayedDecisions);
  });

  it("a multi-turn client replays turn by turn, with fresh control request ids mapped", async () => {
    const file = join(dir, "claude-client.jsonl");
    await using bed = await testBed([{ text: "answer one" }, { text: "answer two" }]);
    const converse = async (options: AgentOptions) => {
      await using client = new AgentSdkClient(options);
      await client.connect();
      const first = await client.run("first question");
      await client.setPermissionMode("acceptEdits");
      const second = await client.run("second question");
      return [...first.messages, ...second.messages];
    };
    const live = await converse(bed.options({ record: file }));
    expect(live.filter((m) => m.type === "result").map((m) => m.type === "result" && m.result)).toEqual([
      "answer one",
      "answer two",
    ]);
    const replayed = await converse(replayOptions(file));
    expect(replayed).toEqual(live);
  });

  it("a replay whose consumer does something else fails with ReplayError instead of hanging", async () => {
    const file = join(dir, "claude-diverge.jsonl");
    await using bed = await testBed([{ text: "answer one" }]);
    {
      await using client = new AgentSdkClient(bed.options({ record: file }));
      await client.connect();
      await client.run("first question");
    }
    await using client = new AgentSdkClient(replayOptions(file));
    await client.connect();
    // The recording has a user turn here, not a permission-mode change.
    await client.setPermissionMode("plan").catch(() => undefined);
    await expect(collect(client.receiveMessages())).rejects.toBeInstanceOf(ReplayError);
  });

  it("a recording file that cannot be written fails the query before anything is spawned", async () => {
    await using bed = await testBed([{ text: "never" }]);
    const run = query({
      prompt: "hi",
      options: bed.options({ record: join(dir, "no-such-dir", "x.jsonl") }),
    });
    await expect(collect(run)).rejects.toThrow(/Cannot write the recording to .*no-such-dir/);
    expect(run.pid).toBeUndefined();
    expect(bed.model.requests).toHaveLength(0);
  });

  it("a path that already exists is refused before anything is spawned (RecordingError), and left as it was", async () => {
    await using bed = await testBed([{ text: "never" }]);
    const existing = join(dir, "existing.jsonl");
    writeFileSync(existing, "keep me\n");
    const run = query({ prompt: "hi", options: bed.options({ record: existing }) });
    await expect(collect(run)).rejects.toBeInstanceOf(RecordingError);
    expect(run.pid).toBeUndefined();
    expect(bed.model.requests).toHaveLength(0);
    expect(readFileSync(existing, "utf8")).toBe("keep me\n");
  });

  it("none of the 13 sample secrets reaches the recording (environment, files the agent reads, prompt, answer, MCP headers/args/env/URL query); the file is 0600; the replay still matches", async () => {
    const secrets = {
      dbUrlPassword: "Db-Url-Pw-5150",
      dbPass: "hunter2-db-pass",
      pemBody: "MIIEowIBAAKCAQEAfakePemBodyLine0123456789abcdef",
      stripe: "sk_live_51HfakeStripe0123456789abcdef",
      gitlab: "glpat-AbCdEf0123456789xyzQ",
      google: "ya29.a0AfH6SMBfakeGoogleOauthToken0123",
      npm: "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
      awsKeyId: "AKIAIOSFODNN7EXAMPLE",
      awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      mcpHeader: "mcp-header-secret-0042",
      mcpArg: "mcp-arg-secret-9931",
      mcpQuery: "mcp-query-secret-3141",
      mcpEnv: "mcp-env-secret-2718",
    };
    const file = join(dir, "claude-secrets.jsonl");
    let credentials = "";
    await using bed = await testBed([
      {
        toolUse: {
          name: "Bash",
          input: { command: 'cat id_rsa .npmrc notes.txt; echo "$DATABASE_URL $DB_PASS"' },
        },
      },
      // The Read tool takes an absolute path: known once the workspace exists.
      () => ({ toolUse: { name: "Read", input: { file_path: credentials } } }),
      { text: `Found: ${secrets.google} and ${secrets.dbPass}` },
    ]);
    mkdirSync(join(bed.cwd, ".aws"));
    credentials = join(bed.cwd, ".aws", "credentials");
    writeFileSync(
      credentials,
      `[default]\naws_access_key_id = ${secrets.awsKeyId}\naws_secret_access_key = ${secrets.awsSecret}\n`,
    );
    writeFileSync(
      join(bed.cwd, "id_rsa"),
      `-----BEGIN RSA PRIVATE KEY-----\n${secrets.pemBody}\n-----END RSA PRIVATE KEY-----\n`,
    );
    writeFileSync(join(bed.cwd, ".npmrc"), `//registry.npmjs.org/:_authToken=${secrets.npm}\n`);
    writeFileSync(join(bed.cwd, "notes.txt"), `gitlab ${secrets.gitlab}\n`);
    const options = (extra: ClaudeAgentOptions = {}): ClaudeAgentOptions => ({
      canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
      mcpServersDelivery: "initialize",
      mcpServers: {
        local: {
          command: "/bin/false",
          args: ["--token", secrets.mcpArg],
          env: { MCP_SECRET: secrets.mcpEnv },
        },
        remote: {
          type: "http",
          url: `http://127.0.0.1:9/mcp?api_key=${secrets.mcpQuery}`,
          headers: { "X-Api-Token": secrets.mcpHeader },
        },
      },
      ...extra,
    });
    const prompt = `Check the workspace; the payment key is ${secrets.stripe}`;
    const live = await oneShot(
      bed.options({
        ...options({ record: file }),
        env: {
          DATABASE_URL: `postgres://app:${secrets.dbUrlPassword}@db.internal:5432/app`,
          DB_PASS: secrets.dbPass,
        },
      }),
      prompt,
    );
    expect(live.at(-1)).toMatchObject({ type: "result" });
    // The secrets did cross the wire in clear (so the recording had them to redact).
    const liveText = JSON.stringify(live);
    for (const secret of [
      secrets.dbUrlPassword,
      secrets.dbPass,
      secrets.pemBody,
      secrets.npm,
      secrets.gitlab,
      secrets.google,
      secrets.awsKeyId,
      secrets.awsSecret,
    ])
      expect(liveText).toContain(secret);

    const text = readFileSync(file, "utf8");
    for (const [name, secret] of Object.entries(secrets)) expect(text, name).not.toContain(secret);
    expect(text).toContain(REDACTED);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const initialize = recording(file).find(
      (l) =>
        l.kind === "out" && (l.line as { request?: { subtype?: string } }).request?.subtype === "initialize",
    );
    expect(initialize).toMatchObject({
      line: {
        request: {
          mcpServers: {
            local: { args: [REDACTED, REDACTED], env: { MCP_SECRET: REDACTED } },
            remote: {
              url: `http://127.0.0.1:9/mcp?api_key=${REDACTED}`,
              headers: { "X-Api-Token": REDACTED },
            },
          },
        },
      },
    });

    // The same prompt and options replay ([REDACTED] matches what was there); another prompt does not.
    const replayed = await oneShot(replayOptions(file, options()), prompt);
    expect(replayed.at(-1)).toMatchObject({ type: "result" });
    await expect(oneShot(replayOptions(file, options()), "Something else entirely")).rejects.toThrow(
      /Replay diverged from the recording: .*claude-secrets\.jsonl:\d+: message\.content: recorded "Check the workspace; the payment key is \[REDACTED\]", written "Something else entirely"/,
    );
  });

  it("a file that is not a recording is refused up front", () => {
    const bogus = join(dir, "bogus.jsonl");
    writeFileSync(bogus, '{"hello":1}\n');
    expect(() => ReplayTransport.fromFile(bogus)).toThrow(ReplayError);
    expect(() => ReplayTransport.fromFile(join(dir, "missing.jsonl"))).toThrow(ReplayError);
  });
});

describe(`record and replay: codex ${CODEX_CLI_VERSION}`, () => {
  it("a one-shot `codex exec` run replays to the same messages", async () => {
    const file = join(dir, "codex-exec.jsonl");
    await using bed = await codexBed([{ execCommand: { cmd: "echo from-codex" } }, { text: "exec done" }]);
    const live = await oneShot(bed.options({ record: file }), "run echo");
    expect(live.at(-1)).toMatchObject({ type: "result", result: "exec done" });
    expect(recording(file)[0]).toMatchObject({ kind: "header", backend: "codex" });
    expectNoSecrets(file, [CODEX_FAKE_API_KEY]);

    const replayed = await oneShot(replayOptions(file), "run echo");
    expect(withoutWallClock(replayed)).toEqual(withoutWallClock(live));
  });

  it("an app-server client with an approval replays to the same messages and asks canUseTool again", async () => {
    const file = join(dir, "codex-client.jsonl");
    await using bed = await codexBed([{ execCommand: { cmd: "touch replayed.txt" } }, { text: "approved" }]);
    const asked: string[] = [];
    const converse = async (options: CodexAgentOptions) => {
      await using client = new AgentSdkClient({
        ...options,
        codex: { approvalPolicy: "untrusted", sandboxMode: "workspace-write" },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "allow" };
        },
      });
      await client.connect();
      return (await client.run("touch the file")).messages;
    };
    const live = await converse(bed.options({ record: file }));
    expect(live.at(-1)).toMatchObject({ type: "result", result: "approved" });
    expect(asked).toEqual(["Bash"]);
    const replayed = await converse(replayOptions(file) as CodexAgentOptions);
    expect(withoutWallClock(replayed)).toEqual(withoutWallClock(live));
    expect(asked).toEqual(["Bash", "Bash"]);
  });
});

/**
 * Codex reports no turn duration of its own: the SDK measures it with its clock, so it differs
 * between any two runs (live or replayed). Everything else must be identical.
 */
function withoutWallClock(messages: Message[]): Message[] {
  return messages.map((m) => (m.type === "result" ? { ...m, durationMs: 0 } : m));
}
