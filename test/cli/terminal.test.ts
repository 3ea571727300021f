/**
 * `code-agent` in a terminal (a pseudo-terminal from python3's pty module), against the real
 * claude CLI and the scripted model: live output, permission prompts answered by typing, Ctrl-C.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, type ScriptedTurn, startFakeAnthropic } from "../../src/testing/index.js";
import { type CliProcess, cliEnv, startInTerminal, visible } from "./support/harness.js";

const running: CliProcess[] = [];
const models: FakeAnthropicServer[] = [];

afterEach(async () => {
  for (const proc of running.splice(0)) {
    if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
  }
  for (const model of models.splice(0)) await model.close();
});

async function scripted(turns: ScriptedTurn[]): Promise<FakeAnthropicServer> {
  const model = await startFakeAnthropic({ turns });
  models.push(model);
  return model;
}

function terminal(
  args: string[],
  model?: FakeAnthropicServer,
  extraEnv: Record<string, string> = {},
): CliProcess {
  const env = cliEnv({ ...model?.env(), ...extraEnv });
  const proc = startInTerminal(args, { env, ...(model ? { cwd: model.env().HOME } : {}) });
  running.push(proc);
  return proc;
}

const bash = (command: string): ScriptedTurn => ({
  toolUse: { name: "Bash", input: { command, description: `Run ${command}` } },
});

describe("code-agent in a terminal", () => {
  it("--demo: asks for permission, the typed answer allows the call, the tool line is rewritten with its outcome", async () => {
    const proc = terminal(["--demo"]);
    await proc.waitFor(/Bash wants permission: touch hello\.txt/);
    await proc.waitFor(/\[y\] allow once .*\[a\] always allow Bash\(touch hello\.txt\).*\[n\] deny/);
    proc.write("y\r");
    await proc.waitFor("allowed once");
    await proc.waitFor(/get_weather\("Paris"\) handled in-process/);
    await proc.waitFor(/✓ done · 3 turns · .* · scripted, no cost · session [0-9a-f-]{36}/);
    // The scripted model is labelled as such: no model name or cost that could pass for real.
    expect(proc.text).toContain("canned (no AI, no API key, no cost)");
    expect(proc.text).toMatch(/● claude · scripted model \(demo\)/);
    expect(proc.text).not.toMatch(/\$\d+\.\d{4}/);
    expect(await proc.exitCode()).toBe(0);

    // The pending line `→ Bash touch hello.txt` was rewritten in place (cursor up, clear line) as `✓ …`.
    expect(visible(proc.stdout)).toMatch(/⎋\[\d+A\r⎋\[2K⎋\[32m✓⎋\[39m ⎋\[1mBash⎋\[22m touch hello\.txt/);
    expect(proc.text).toContain("Created hello.txt. In Paris it is 21°C with a clear sky.");
    // Streamed text is printed once, not again when the whole message arrives.
    expect(proc.text.split("I'll create the file first.").length - 1).toBe(1);
    // Thinking is hidden by default.
    expect(proc.text).not.toContain("The user wants a file");
    // A spinner ran while waiting for the model.
    expect(proc.text).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the model/);
    // Colours are on in a terminal.
    expect(proc.stdout).toContain("\x1b[32m");
  });

  it("--demo --thinking shows the thinking, dimmed", async () => {
    const proc = terminal(["--demo", "--thinking", "--allow", "Bash"]);
    await proc.waitFor(/✓ done/);
    expect(await proc.exitCode()).toBe(0);
    expect(visible(proc.stdout)).toMatch(/⎋\[2m✻ ⎋\[22m⎋\[2mThe user wants/);
    expect(proc.text).not.toContain("wants permission");
  });

  it("n denies the call: the line says denied and the model gets the refusal", async () => {
    const model = await scripted([bash("touch denied.txt"), { text: "OK, I will not." }]);
    const proc = terminal(["do it"], model);
    await proc.waitFor(/Bash wants permission: touch denied\.txt/);
    proc.write("n\r");
    await proc.waitFor(/⊘ Bash touch denied\.txt — denied: denied by you/);
    await proc.waitFor("OK, I will not.");
    expect(await proc.exitCode()).toBe(0);
    expect(existsSync(join(model.env().HOME ?? "", "denied.txt"))).toBe(false);
    const toolResult = JSON.stringify(model.turnRequests[1]?.body.messages.at(-1));
    expect(toolResult).toContain("The user denied this tool call");
  });

  it("a answers always: the rule goes back as updatedPermissions and the same call is not asked again", async () => {
    const model = await scripted([bash("touch again.txt"), bash("touch again.txt"), { text: "Twice." }]);
    const proc = terminal(["twice"], model);
    await proc.waitFor(/Bash wants permission: touch again\.txt/);
    proc.write("a\r");
    await proc.waitFor(/allowed Bash\(touch again\.txt\)/);
    await proc.waitFor("Twice.");
    await proc.waitFor(/✓ done/);
    expect(await proc.exitCode()).toBe(0);
    expect(proc.text.split("wants permission").length - 1).toBe(1);
    expect(proc.text.match(/✓ Bash touch again\.txt/g)?.length).toBe(2);
    // Kept for the session: nothing is written into the user's project.
    expect(proc.text).toContain("for this session");
    expect(existsSync(join(model.env().HOME ?? "", ".claude", "settings.local.json"))).toBe(false);
  });

  it("--remember-in localSettings: an always-allow rule is saved to the project's local settings", async () => {
    const model = await scripted([bash("touch kept.txt"), { text: "Kept." }]);
    const proc = terminal(["--remember-in", "localSettings", "keep"], model);
    await proc.waitFor(/Bash wants permission: touch kept\.txt/);
    proc.write("a\r");
    await proc.waitFor(/saved to localSettings/);
    await proc.waitFor(/✓ done/);
    expect(await proc.exitCode()).toBe(0);
    const local = readFileSync(join(model.env().HOME ?? "", ".claude", "settings.local.json"), "utf8");
    expect(JSON.parse(local).permissions.allow).toContain("Bash(touch kept.txt)");
  });

  it("a single key answers without Enter; a stray Enter at the next prompt is not an answer", async () => {
    const model = await scripted([bash("touch one.txt"), bash("touch two.txt"), { text: "Both asked." }]);
    const proc = terminal(["two files"], model);
    await proc.waitFor(/Bash wants permission: touch one\.txt/);
    proc.write("y");
    await proc.waitFor("allowed once");
    await proc.waitFor(/Bash wants permission: touch two\.txt/);
    proc.write("\r");
    proc.write("N");
    await proc.waitFor(/⊘ Bash touch two\.txt — denied: denied by you/);
    await proc.waitFor("Both asked.");
    expect(await proc.exitCode()).toBe(0);
    expect(proc.text).not.toContain("answer y, a or n");
    expect(existsSync(join(model.env().HOME ?? "", "one.txt"))).toBe(true);
    expect(existsSync(join(model.env().HOME ?? "", "two.txt"))).toBe(false);
  });

  it("an unclear answer is asked again", async () => {
    const model = await scripted([bash("touch x.txt"), { text: "Done." }]);
    const proc = terminal(["x"], model);
    await proc.waitFor(/wants permission/);
    proc.write("maybe\r");
    await proc.waitFor("answer y, a or n");
    proc.write("y\r");
    await proc.waitFor(/✓ done/);
    expect(await proc.exitCode()).toBe(0);
  });

  it("Ctrl-C interrupts a stalled turn and exits 130", async () => {
    const model = await scripted([{ stall: true, text: "Thinking about it" }]);
    const proc = terminal(["hang"], model);
    await proc.waitFor("Thinking about it");
    proc.write("\x03");
    await proc.waitFor("interrupting");
    expect(await proc.exitCode()).toBe(130);
    // The interrupted turn's result is shown as an interruption, not as a failure.
    expect(proc.text).toMatch(/⏹ interrupted · /);
    expect(proc.text).not.toContain("✗ failed");
  });

  it("Ctrl-C at a permission prompt denies, interrupts the turn and exits 130", async () => {
    const model = await scripted([bash("touch y.txt"), { text: "never reached" }]);
    const proc = terminal(["y"], model);
    await proc.waitFor(/wants permission/);
    proc.write("\x03");
    expect(await proc.exitCode()).toBe(130);
    expect(proc.text).not.toContain("never reached");
  });

  it("-i: a prompt line per turn, Ctrl-C interrupts the running turn, Ctrl-D ends the session", async () => {
    const model = await scripted([
      { text: "First answer." },
      { stall: true, text: "Working on the second" },
      { text: "Third answer." },
    ]);
    const proc = terminal(["-i"], model);
    await proc.waitFor("› ");
    proc.write("first\r");
    await proc.waitFor("First answer.");
    await proc.waitFor(/✓ done/);
    await proc.waitFor("› ", { count: 2 });
    proc.write("second\r");
    await proc.waitFor("Working on the second");
    proc.write("\x03");
    await proc.waitFor("interrupting");
    await proc.waitFor("› ", { count: 3 });
    proc.write("third\r");
    await proc.waitFor(/⏹ interrupted · /);
    await proc.waitFor("Third answer.");
    await proc.waitFor("› ", { count: 4 });
    proc.write("\x04");
    expect(await proc.exitCode()).toBe(0);
    // One CLI process served all three turns.
    const asked = model.turnRequests.map((r) => r.lastUserText);
    expect(asked.slice(0, 2)).toEqual(["first", "second"]);
    // The CLI tells the model about the interrupt in the next user message.
    expect(asked[2]).toMatch(/interrupted by user[\s\S]*third$/);
  });

  it("-i: Ctrl-C at the idle prompt ends the session with 130", async () => {
    const model = await scripted([{ text: "Hello." }]);
    const proc = terminal(["-i", "hi"], model);
    await proc.waitFor("Hello.");
    await proc.waitFor("› ", { count: 2 });
    proc.write("\x03");
    expect(await proc.exitCode()).toBe(130);
  });

  it("NO_COLOR turns colours off in a terminal; the spinner and rewrites stay", async () => {
    const proc = terminal(["--demo", "--allow", "Bash"], undefined, { NO_COLOR: "1" });
    await proc.waitFor(/✓ done/);
    expect(await proc.exitCode()).toBe(0);
    expect(visible(proc.stdout)).not.toMatch(/⎋\[(1|2|3\d)m/);
    expect(visible(proc.stdout)).toMatch(/⎋\[\d+A\r⎋\[2K✓ Bash touch hello\.txt/);
  });

  it("--backend codex --demo: the codex approval becomes the same prompt; streamed text is shown once", async () => {
    const proc = terminal(["--backend", "codex", "--demo"]);
    await proc.waitFor(/Bash wants permission: .*touch hello\.txt/);
    proc.write("y\r");
    await proc.waitFor(/✓ done · /);
    expect(await proc.exitCode()).toBe(0);
    expect(proc.text).toMatch(/✓ Bash .*touch hello\.txt/);
    expect(proc.text.split("I'll create the file first.").length - 1).toBe(1);
    expect(proc.text.split("Done.").length - 1).toBe(1);
  });

  it("--backend acp --demo: claude-code-acp's permission request becomes the same prompt; streamed text is shown once", async () => {
    const proc = terminal(["--backend", "acp", "--demo"]);
    await proc.waitFor(/Bash wants permission: touch hello\.txt/);
    proc.write("y\r");
    await proc.waitFor(/✓ done · /);
    expect(await proc.exitCode()).toBe(0);
    expect(proc.text).toMatch(/✓ Bash touch hello\.txt/);
    expect(proc.text.split("I'll create the file.").length - 1).toBe(1);
    expect(proc.text.split("Done: hello.txt is there.").length - 1).toBe(1);
  });
});
