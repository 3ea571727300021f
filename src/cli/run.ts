/**
 * The `code-agent` command: runs an agent on a prompt (or a multi-turn session) and shows what it
 * does. Everything here goes through the public API (`query()`, `AgentSdkClient`), so it works
 * with every backend.
 */
import { createInterface } from "node:readline";
import { backendFor, getBackend } from "../backends/registry.js";
import { AgentSdkClient } from "../client.js";
import {
  AbortError,
  CliNotFoundError,
  InvalidOptionsError,
  NotConnectedError,
  UnsupportedOptionsError,
} from "../errors.js";
import type { Message, ResultMessage } from "../messages.js";
import type { ResolvedOptions } from "../options/resolved.js";
import { query } from "../query.js";
import { SDK_VERSION } from "../version.js";
import { ACP_AGENTS, type CliArgs, parseCliArgs, type RunArgs, USAGE, UsageError } from "./args.js";
import type { Demo } from "./demo.js";
import { ExitCode } from "./exit-codes.js";
import { runInstall } from "./install-command.js";
import { askKey } from "./key-input.js";
import { askLine, type LineAnswer } from "./line-input.js";
import { PermissionHandler } from "./permissions.js";
import { Renderer } from "./render.js";
import { colorEnabled, createStyle, type OutputStream, Screen } from "./screen.js";

/** The streams and environment the command runs with. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: OutputStream;
  stderr: OutputStream;
  env: Record<string, string | undefined>;
}

/** The permission prompt's answers, taken on the key press: allow once, always allow, deny. */
const PERMISSION_KEYS = ["y", "a", "n"] as const;

/** How long an interrupt may take before the session is closed outright. */
const INTERRUPT_GRACE_MS = 5000;

/** Runs `code-agent` with `argv` (without `node` and the script) and resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, error.message);
    throw error;
  }
  switch (args.command) {
    case "help":
      io.stdout.write(`${USAGE}\n`);
      return ExitCode.Success;
    case "version":
      io.stdout.write(`code-agent ${SDK_VERSION}\n`);
      return ExitCode.Success;
    case "install":
      return runInstall(args, io);
    case "run":
      return runAgent(args, io);
  }
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

function usageError(io: CliIo, message: string): number {
  io.stderr.write(`code-agent: ${message}\nRun \`code-agent --help\` for usage.\n`);
  return ExitCode.Usage;
}

/** Per-turn interrupt state shared by the SIGINT handler and the permission prompt. */
interface TurnControl {
  interrupted: boolean;
  /** Set by a second Ctrl-C: end everything. */
  quit: boolean;
}

async function runAgent(args: RunArgs, io: CliIo): Promise<number> {
  const human = !args.json;
  // Human output goes to stdout; with --json, stdout carries only messages and the UI uses stderr.
  const ui = human ? io.stdout : io.stderr;
  const live = human && io.stdout.isTTY === true && io.env.TERM !== "dumb";
  const screen = new Screen(ui, createStyle(colorEnabled(ui, io.env)), live);
  const canAsk = io.stdin.isTTY === true && ui.isTTY === true;
  const renderer = new Renderer({
    screen,
    showThinking: args.thinking,
    backend: args.backend,
    agent: args.agent,
    demo: args.demo,
  });
  const note = (text: string) => (human ? renderer.note(text) : io.stderr.write(`${text}\n`));
  const control: TurnControl = { interrupted: false, quit: false };

  let prompt = args.prompt;
  // The demo has a prompt of its own, so it never waits on a stdin that nobody closes (a parent
  // process, a CI runner): `code-agent --demo [PROMPT]` takes its prompt as an argument only.
  if (prompt === undefined && !args.interactive && !args.demo && io.stdin.isTTY !== true) {
    prompt = (await readAll(io.stdin)).trim() || undefined;
  }
  if (prompt === undefined && !args.interactive) {
    if (!args.demo) {
      return usageError(io, "no prompt: pass it as an argument, pipe it on stdin, or use -i for a session");
    }
    prompt = (await import("./demo.js")).DEMO_PROMPT;
  }

  let demo: Demo | undefined;
  try {
    if (args.demo) {
      // Loaded only for --demo: it brings the scripted model servers and zod.
      const { startDemo } = await import("./demo.js");
      demo = await startDemo(args.backend, { note, cwd: args.cwd, agent: args.agent });
      note(demo.banner);
    }
    const permissions = new PermissionHandler({
      allow: args.allow,
      deny: args.deny,
      cwd: args.cwd ?? process.cwd(),
      rememberIn: args.rememberIn,
      ask: canAsk
        ? (text, signal) =>
            askKey({ input: io.stdin, output: ui, prompt: text, keys: PERMISSION_KEYS, signal })
        : undefined,
      screen,
      stderr: io.stderr,
      onDenied: (toolUseId, reason) => renderer.markDenied(toolUseId, reason),
      onInterrupt: () => {
        control.interrupted = true;
        renderer.markInterrupted();
      },
    });
    const { options, soft } = buildOptions(args, demo, permissions.canUseTool, live, canAsk);
    const fitted = await fitOptions(options, soft);
    // Claude Code applies --allow itself (--allowedTools, its own matcher); what it still asks
    // about is outside those rules.
    if (args.allow.length > 0 && fitted.allowedTools !== undefined) permissions.allowEnforcedByCli();
    const emit = (message: Message) => {
      if (human) renderer.handle(message);
      else io.stdout.write(`${JSON.stringify(message)}\n`);
    };
    const turn = { renderer, emit, note, control, human, screen };
    return args.interactive
      ? await interactive(fitted, prompt, turn, io, canAsk)
      : await oneShot(fitted, prompt ?? "", turn);
  } catch (error) {
    return reportError(error, io, screen, control);
  } finally {
    screen.close();
    await demo?.close();
  }
}

interface TurnContext {
  renderer: Renderer;
  emit(message: Message): void;
  note(text: string): void;
  control: TurnControl;
  human: boolean;
  screen: Screen;
}

/** One prompt, one run: `query()`. */
async function oneShot(options: ResolvedOptions, prompt: string, turn: TurnContext): Promise<number> {
  const { control } = turn;
  const run = query({ prompt, options });
  const onSigint = () => {
    if (control.interrupted) {
      control.quit = true;
      void run.close();
      return;
    }
    control.interrupted = true;
    turn.renderer.markInterrupted();
    turn.screen.spinner(undefined);
    turn.note("⏹ interrupting… (Ctrl-C again to quit)");
    run.interrupt().catch(() => void run.close());
    setTimeout(() => void run.close(), INTERRUPT_GRACE_MS).unref();
  };
  process.on("SIGINT", onSigint);
  let last: ResultMessage | undefined;
  try {
    if (turn.human) turn.renderer.turnStarted();
    for await (const message of run) {
      turn.emit(message);
      if (message.type === "result") last = message;
    }
  } catch (error) {
    if (control.interrupted) return ExitCode.Interrupted;
    throw error;
  } finally {
    process.off("SIGINT", onSigint);
    await run.close();
  }
  if (control.interrupted) return ExitCode.Interrupted;
  if (!last) throw new Error("the agent ended without a result");
  return last.isError ? ExitCode.Failed : ExitCode.Success;
}

/** A session over `AgentSdkClient`: one prompt line per turn. */
async function interactive(
  options: ResolvedOptions,
  firstPrompt: string | undefined,
  turn: TurnContext,
  io: CliIo,
  canAsk: boolean,
): Promise<number> {
  const { control, screen } = turn;
  const { style } = screen;
  const history: string[] = [];
  const pipedLines =
    io.stdin.isTTY === true
      ? undefined
      : createInterface({ input: io.stdin, terminal: false })[Symbol.asyncIterator]();
  const nextLine = async (): Promise<LineAnswer> => {
    if (pipedLines) {
      const next = await pipedLines.next();
      return next.done ? { kind: "eof" } : { kind: "line", text: next.value };
    }
    if (!canAsk) return { kind: "eof" };
    screen.ensureLineStart();
    const prompt = style.bold(style.cyan("› "));
    const answer = await askLine({ input: io.stdin, output: screen.out, prompt, history });
    screen.noteExternalLine(2 + (answer.kind === "line" ? answer.text.length : 2));
    return answer;
  };

  const client = new AgentSdkClient(options);
  let failed = false;
  let exit: number = ExitCode.Success;
  try {
    await client.connect();
    if (turn.human && canAsk)
      turn.note("Session started. One prompt per line; Ctrl-C interrupts a turn, Ctrl-D ends.");
    let pending = firstPrompt;
    for (;;) {
      let text: string;
      if (pending !== undefined) {
        text = pending;
        pending = undefined;
        if (turn.human) screen.line(`${style.bold(style.cyan("›"))} ${text}`);
      } else {
        const answer = await nextLine();
        if (answer.kind === "eof") break;
        if (answer.kind === "interrupt") {
          exit = ExitCode.Interrupted;
          break;
        }
        text = answer.text.trim();
        if (text === "") continue;
        if (pipedLines && turn.human) screen.line(`${style.bold(style.cyan("›"))} ${text}`);
      }
      const result = await runTurn(client, text, turn);
      if (control.quit) {
        exit = ExitCode.Interrupted;
        break;
      }
      if (result === undefined) throw new Error("the agent ended without a result");
      if (result.isError && !control.interrupted) failed = true;
    }
  } finally {
    await client.disconnect();
  }
  if (exit !== ExitCode.Success) return exit;
  // A piped session reports failure like a one-shot run; a person ending a session gets 0.
  return pipedLines && failed ? ExitCode.Failed : ExitCode.Success;
}

async function runTurn(
  client: AgentSdkClient,
  text: string,
  turn: TurnContext,
): Promise<ResultMessage | undefined> {
  const { control } = turn;
  control.interrupted = false;
  const onSigint = () => {
    if (control.interrupted) {
      control.quit = true;
      void client.disconnect();
      return;
    }
    control.interrupted = true;
    turn.renderer.markInterrupted();
    turn.screen.spinner(undefined);
    turn.note("⏹ interrupting… (Ctrl-C again to end the session)");
    client.interrupt().catch(() => {
      control.quit = true;
      void client.disconnect();
    });
  };
  process.on("SIGINT", onSigint);
  let last: ResultMessage | undefined;
  try {
    await client.query(text);
    if (turn.human) turn.renderer.turnStarted();
    for await (const message of client.receiveResponse()) {
      turn.emit(message);
      if (message.type === "result") last = message;
    }
  } catch (error) {
    if (control.quit && (error instanceof NotConnectedError || error instanceof AbortError)) return last;
    throw error;
  } finally {
    process.off("SIGINT", onSigint);
  }
  return last;
}

/**
 * Options for the run. `soft` lists what the command adds on its own (permission prompts, partial
 * messages, the demo's tool); a backend that cannot honour one of those just runs without it.
 */
function buildOptions(
  args: RunArgs,
  demo: Demo | undefined,
  canUseTool: NonNullable<ResolvedOptions["canUseTool"]>,
  live: boolean,
  canAsk: boolean,
): { options: ResolvedOptions; soft: Set<keyof ResolvedOptions> } {
  const soft = new Set<keyof ResolvedOptions>(["canUseTool", "canUseToolScope", "includePartialMessages"]);
  // Like `claude` itself, the command asks about what the CLI asks about (with its suggested
  // rules for "always allow"), not about every read the CLI makes on its own.
  const options: ResolvedOptions = {
    ...demo?.options,
    backend: args.backend,
    canUseTool,
    canUseToolScope: "asked-calls",
  };
  if (demo) {
    for (const key of Object.keys(demo.options) as (keyof ResolvedOptions)[]) {
      if (key !== "env" && key !== "cwd") soft.add(key);
    }
  }
  if (live) options.includePartialMessages = true;
  if (args.model !== undefined) options.model = args.model;
  if (args.cwd !== undefined) options.cwd = args.cwd;
  if (args.backend === "acp" && args.agent !== undefined) options.acp = acpOption(args.agent);
  // --allow/--deny are enforced by our canUseTool too, so a backend that asks for approval but has
  // no tool lists (Codex) still honours them; one that cannot ask at all (Cursor) must refuse them.
  const asks = getBackend(args.backend).capabilities.toolApproval;
  if (args.allow.length > 0) {
    options.allowedTools = [...(demo?.options.allowedTools ?? []), ...args.allow];
    if (asks) soft.add("allowedTools");
    else soft.delete("allowedTools");
  }
  if (args.deny.length > 0) {
    options.disallowedTools = args.deny;
    if (asks) soft.add("disallowedTools");
  }
  if (args.permissionMode !== undefined) {
    options.permissionMode = args.permissionMode;
    // Asking for this mode on the command line is the explicit consent the option exists for.
    if (args.permissionMode === "bypassPermissions") options.allowDangerouslySkipPermissions = true;
  }
  if (args.maxTurns !== undefined) options.maxTurns = args.maxTurns;
  if (args.settingSources !== undefined) {
    options.settingSources = args.settingSources;
  } else if (!canAsk && options.settingSources === undefined) {
    // Nobody is there to see what an untrusted checkout's .claude/settings.json hooks would run:
    // without a terminal only the user's own settings load unless --setting-sources says otherwise.
    options.settingSources = ["user"];
    soft.add("settingSources");
  }
  if (args.resume !== undefined) options.resume = args.resume;
  if (args.cliPath !== undefined) options.cliPath = args.cliPath;
  return { options, soft };
}

/** `--agent`: a preset by name, else the agent's command. */
function acpOption(agent: string): ResolvedOptions["acp"] {
  return (ACP_AGENTS as readonly string[]).includes(agent)
    ? { agent: agent as (typeof ACP_AGENTS)[number] }
    : { command: agent };
}

/** The command-line flag behind an option, for error messages. */
const FLAG_OF: Partial<Record<keyof ResolvedOptions, string>> = {
  allowedTools: "--allow",
  disallowedTools: "--deny",
  permissionMode: "--permission-mode",
  maxTurns: "--max-turns",
  settingSources: "--setting-sources",
  resume: "--resume",
  cliPath: "--cli-path",
  model: "--model",
  cwd: "--cwd",
};

/**
 * Validates `options` for their backend, dropping the `soft` ones the backend cannot honour.
 * @throws UsageError naming the flags the backend cannot honour; InvalidOptionsError.
 */
async function fitOptions(
  options: ResolvedOptions,
  soft: Set<keyof ResolvedOptions>,
): Promise<ResolvedOptions> {
  const backend = await backendFor(options);
  let current = options;
  for (;;) {
    try {
      backend.validateOptions(current);
      return current;
    } catch (error) {
      if (!(error instanceof UnsupportedOptionsError)) throw error;
      // Names may point inside an option (`mcpServers.demo`): the top-level key decides.
      const top = (name: string) => (name.split(".")[0] ?? name) as keyof ResolvedOptions;
      const hard = error.options.filter((o) => !soft.has(top(o)));
      if (hard.length > 0) {
        throw new UsageError(
          `the ${backend.name} backend does not support ${hard.map((o) => FLAG_OF[o as keyof ResolvedOptions] ?? o).join(", ")}`,
        );
      }
      const next: ResolvedOptions = { ...current };
      for (const key of error.options) delete next[top(key)];
      if (Object.keys(next).length === Object.keys(current).length) throw error;
      current = next;
    }
  }
}

function reportError(error: unknown, io: CliIo, screen: Screen, control: TurnControl): number {
  screen.close();
  if (error instanceof UsageError) return usageError(io, error.message);
  if (error instanceof InvalidOptionsError) return usageError(io, error.message);
  if (error instanceof UnsupportedOptionsError) return usageError(io, error.message);
  if (error instanceof CliNotFoundError) {
    io.stderr.write(notFoundMessage(error));
    return ExitCode.CliNotFound;
  }
  if (control.interrupted || control.quit) return ExitCode.Interrupted;
  io.stderr.write(`code-agent: ${(error as Error)?.message ?? String(error)}\n`);
  return ExitCode.Failed;
}

/**
 * The agent CLI is missing: say so in command-line terms (install commands, PATH, `--cli-path`),
 * not the library's option names the error itself mentions.
 */
export function notFoundMessage(error: CliNotFoundError): string {
  const how = INSTALL_HOW[error.cli];
  const lines = [
    `code-agent: the ${how?.name ?? error.cli} CLI (\`${error.cli}\`) was not found.`,
    `  Looked in: ${error.searched.length > 0 ? error.searched.join(", ") : "(nowhere)"}`,
    ...(how?.install ?? []).map((line, i) => `  ${i === 0 ? "Install it:" : "        or:"} ${line}`),
    `  Already installed? Put its directory on PATH, or run: code-agent --cli-path /path/to/${error.cli} …`,
  ];
  if (how?.envVar) lines.push(`  (or set ${how.envVar} to that path)`);
  return `${lines.join("\n")}\n`;
}

const INSTALL_HOW: Record<string, { name: string; install: string[]; envVar: string }> = {
  claude: {
    name: "Claude Code",
    install: [
      "npm install -g @anthropic-ai/claude-code",
      "code-agent install claude   (into your user cache, no global install)",
    ],
    envVar: "CLAUDE_CLI_PATH",
  },
  codex: {
    name: "Codex",
    install: [
      "npm install -g @openai/codex",
      "code-agent install codex   (into your user cache, no global install)",
    ],
    envVar: "CODEX_CLI_PATH",
  },
  "cursor-agent": {
    name: "Cursor Agent",
    install: ["curl https://cursor.com/install -fsS | bash"],
    envVar: "CURSOR_AGENT_CLI_PATH",
  },
};

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
