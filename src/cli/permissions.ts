/**
 * `canUseTool` for the `code-agent` command: in a terminal, ask (allow once / allow always / deny);
 * without one, allow what `--allow` covers and deny the rest, saying so on stderr.
 */
import type {
  CanUseTool,
  PermissionResult,
  PermissionRuleValue,
  PermissionUpdate,
  ToolPermissionContext,
} from "../permissions.js";
import type { RememberDestination } from "./args.js";
import type { LineAnswer } from "./line-input.js";
import { displayToolName, summarizeInput } from "./render.js";
import { type Screen, stripAnsi, truncate } from "./screen.js";
import { matchesToolRule } from "./tool-rules.js";

function ruleMatches(
  rule: PermissionRuleValue,
  toolName: string,
  input: Record<string, unknown>,
  cwd: string,
): boolean {
  return matchesToolRule(
    rule.ruleContent !== undefined ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName,
    toolName,
    input,
    cwd,
  );
}

/** Asks one question; resolves with the typed line, an interrupt (Ctrl-C) or end of input. */
export type Ask = (prompt: string, signal: AbortSignal) => Promise<LineAnswer>;

export interface PermissionHandlerOptions {
  /** `--allow` patterns. */
  allow: readonly string[];
  /** `--deny` patterns. */
  deny: readonly string[];
  /** The agent's working directory: relative paths in rules and tool inputs are resolved against it. */
  cwd: string;
  /**
   * Where "always allow" keeps the rule: `session` (this session only, nothing written) unless the
   * user chose a settings file with `--remember-in`. Default `session`.
   */
  rememberIn?: RememberDestination;
  /** Set when a person can answer (stdin and the prompt's stream are terminals). */
  ask: Ask | undefined;
  /** Where the prompt is shown. */
  screen: Screen;
  /** Diagnostics (the non-interactive denials). */
  stderr: NodeJS.WritableStream;
  /** Told about every denial, to label the tool line. */
  onDenied(toolUseId: string | undefined, reason: string): void;
  /** Ctrl-C at a permission prompt: the turn is interrupted. */
  onInterrupt(): void;
}

/** Decides tool calls for the command line. Prompts are serialized: one question at a time. */
export class PermissionHandler {
  private readonly remembered: PermissionRuleValue[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Set when the CLI enforces `--allow` itself (Claude Code's `--allowedTools`): whatever it still
   * asks about is outside its rules, so `--allow` must not allow it here with a second, different
   * matcher.
   */
  private cliEnforcesAllow = false;

  constructor(private readonly options: PermissionHandlerOptions) {}

  /** The CLI applies `--allow` itself from now on (see {@link PermissionHandler.cliEnforcesAllow}). */
  allowEnforcedByCli(): void {
    this.cliEnforcesAllow = true;
  }

  /** The `canUseTool` callback. */
  readonly canUseTool: CanUseTool = (toolName, input, context) => {
    const run = this.queue.then(() => this.decide(toolName, input, context));
    this.queue = run.catch(() => undefined);
    return run;
  };

  private async decide(
    toolName: string,
    input: Record<string, unknown>,
    context: ToolPermissionContext,
  ): Promise<PermissionResult> {
    const { options } = this;
    const summary = summarizeInput(toolName, input);
    const label = `${displayToolName(toolName)}${summary ? ` (${truncate(summary, 80)})` : ""}`;
    const { cwd } = options;
    if (options.deny.some((p) => matchesToolRule(p, toolName, input, cwd))) {
      return this.deny(context, "denied by --deny", `${toolName} is denied by --deny`);
    }
    if (!this.cliEnforcesAllow && options.allow.some((p) => matchesToolRule(p, toolName, input, cwd))) {
      return { behavior: "allow", updatedInput: input };
    }
    if (this.remembered.some((rule) => ruleMatches(rule, toolName, input, cwd))) {
      return { behavior: "allow", updatedInput: input };
    }
    if (context.signal.aborted) return this.deny(context, "cancelled", "The request was cancelled");
    if (!options.ask) {
      options.stderr.write(
        `code-agent: denied ${label}: not running in a terminal, so nobody can be asked; ` +
          `pass --allow ${toolName} to allow it\n`,
      );
      return this.deny(
        context,
        "no terminal to ask",
        `Permission denied: code-agent runs without a terminal and --allow does not cover ${toolName}.`,
      );
    }
    return this.prompt(toolName, input, context, options.ask);
  }

  private async prompt(
    toolName: string,
    input: Record<string, unknown>,
    context: ToolPermissionContext,
    ask: Ask,
  ): Promise<PermissionResult> {
    const { screen } = this.options;
    const { style } = screen;
    const always = alwaysRules(toolName, context.suggestions, this.options.rememberIn ?? "session");
    screen.hold();
    try {
      const width = screen.columns - 1;
      const summary = summarizeInput(toolName, input);
      screen.direct(() => {
        screen.ensureLineStart();
        screen.line(
          `${style.yellow("?")} ${style.bold(displayToolName(toolName))} wants permission${summaryOf(toolName, input, width - 40)}`,
        );
        const description = context.description ? oneLine(context.description) : "";
        if (description && description !== summary)
          screen.line(style.dim(`  ${truncate(description, width - 2)}`));
        if (context.blockedPath && context.blockedPath !== summary) {
          screen.line(style.dim(`  path: ${truncate(context.blockedPath, width - 8)}`));
        }
        for (const line of inputLines(input, width - 2)) screen.line(style.dim(`  ${line}`));
      });
      const prompt = `  ${style.bold("[y]")} allow once  ${style.bold("[a]")} always allow ${always.label}  ${style.bold("[n]")} deny › `;
      const say = (text: string) => screen.direct(() => screen.line(style.dim(`  ${text}`)));
      for (;;) {
        const answer = await ask(prompt, context.signal);
        const visible = stripAnsi(prompt).length + (answer.kind === "line" ? answer.text.length : 2);
        screen.noteExternalLine(visible);
        if (answer.kind === "interrupt") {
          this.options.onInterrupt();
          return this.deny(context, "interrupted", "The user interrupted the turn", true);
        }
        if (answer.kind === "eof") return this.deny(context, "no answer", "The user gave no answer");
        const choice = answer.text.trim().toLowerCase();
        if (choice === "y" || choice === "yes") {
          say("allowed once");
          return { behavior: "allow", updatedInput: input };
        }
        if (choice === "a" || choice === "always") {
          this.remembered.push(...always.rules);
          say(`allowed ${always.label}${always.where}`);
          return {
            behavior: "allow",
            updatedInput: input,
            ...(always.updates.length > 0 ? { updatedPermissions: always.updates } : {}),
          };
        }
        if (choice === "n" || choice === "no") {
          say("denied");
          return this.deny(context, "denied by you", "The user denied this tool call");
        }
        say("answer y, a or n");
      }
    } finally {
      screen.release();
    }
  }

  private deny(
    context: ToolPermissionContext,
    reason: string,
    message: string,
    interrupt = false,
  ): PermissionResult {
    this.options.onDenied(context.toolUseId, reason);
    return { behavior: "deny", message, ...(interrupt ? { interrupt: true } : {}) };
  }
}

/**
 * What "always allow" means for this call: the CLI's own `addRules`/`allow` suggestions when it
 * gave some (returned as `updatedPermissions`, so the CLI applies them), else a rule for the tool
 * kept in this process. The suggestions' own destination (the CLI proposes the project's
 * `.claude/settings.local.json`) is replaced by `rememberIn`: the session, unless the user chose a
 * settings file.
 */
function alwaysRules(
  toolName: string,
  suggestions: readonly PermissionUpdate[],
  rememberIn: RememberDestination,
): { rules: PermissionRuleValue[]; updates: PermissionUpdate[]; label: string; where: string } {
  const updates = suggestions
    .filter(
      (s): s is Extract<PermissionUpdate, { rules: PermissionRuleValue[] }> =>
        s.type === "addRules" && s.behavior === "allow" && s.rules.length > 0,
    )
    .map((s) => ({ ...s, destination: rememberIn }));
  const rules = updates.flatMap((u) => u.rules);
  if (rules.length === 0) {
    return {
      rules: [{ toolName }],
      updates: [],
      label: displayToolName(toolName),
      where: " for this session",
    };
  }
  const label = rules
    .map((r) =>
      r.ruleContent !== undefined
        ? `${displayToolName(r.toolName)}(${r.ruleContent})`
        : displayToolName(r.toolName),
    )
    .join(", ");
  const where = rememberIn === "session" ? " for this session" : ` (saved to ${rememberIn})`;
  return { rules, updates, label: truncate(label, 60), where };
}

function summaryOf(toolName: string, input: Record<string, unknown>, width = 100): string {
  const summary = summarizeInput(toolName, input);
  return summary ? `: ${truncate(summary, Math.max(20, width))}` : "";
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** The input as indented JSON, at most 8 lines. */
function inputLines(input: Record<string, unknown>, width: number): string[] {
  const lines = JSON.stringify(input, null, 2).split("\n");
  const shown = lines.slice(0, 8).map((line) => truncate(line, width));
  if (lines.length > 8) shown.push(`… ${lines.length - 8} more lines`);
  return shown;
}
