/**
 * A client of the community AI SDK provider for Claude (`ai-sdk-provider-claude-code` 4.1.0 on
 * `ai` 7), run as a child process by ../real-clients.test.ts: `@anthropic-ai/claude-agent-sdk` is
 * resolved to the official 0.3.330 package or to our compat entry point (argv[2]: "official" |
 * "compat"), then one documented scenario (argv[3]) runs and its outcome is printed as JSON.
 * argv[4] is a JSON object: `{ cli, env, cwd }` for the provider's settings.
 */
import { register } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, scenario, settingsJson] = process.argv.slice(2);
const root = join(import.meta.dirname, "..", "..", "..");
const target =
  mode === "compat"
    ? pathToFileURL(join(root, "src", "compat", "claude-agent-sdk", "index.ts")).href
    : pathToFileURL(join(root, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.mjs")).href;
register(pathToFileURL(join(import.meta.dirname, "redirect-hooks.mjs")).href, import.meta.url, {
  data: { target },
});

const { generateText, streamText } = await import("ai-v7");
// The module the provider gets (our compat entry point exports REJECTED_OPTIONS; the official does not).
const sdk = (await import("@anthropic-ai/claude-agent-sdk")) as Record<string, unknown>;
const loaded = "REJECTED_OPTIONS" in sdk ? "compat" : "official";
const { createClaudeCode } = await import("ai-sdk-provider-claude-code");
const { cli, env, cwd } = JSON.parse(settingsJson ?? "{}") as {
  cli: string;
  env: Record<string, string>;
  cwd: string;
};
const provider = createClaudeCode({
  defaultSettings: { pathToClaudeCodeExecutable: cli, env, cwd, allowedTools: ["Bash"], settingSources: [] },
});
const model = provider("sonnet");

async function run(): Promise<unknown> {
  switch (scenario) {
    case "generateText": {
      const result = await generateText({ model, prompt: "Say hello" });
      return { text: result.text, finishReason: result.finishReason, usage: result.usage };
    }
    case "streamText": {
      const result = streamText({ model, prompt: "Stream a greeting" });
      const deltas: string[] = [];
      for await (const delta of result.textStream) deltas.push(delta);
      return { text: deltas.join(""), finishReason: await result.finishReason };
    }
    case "toolCall": {
      const result = await generateText({ model, prompt: "Run the command" });
      return {
        text: result.text,
        finishReason: result.finishReason,
        parts: result.content.map((part) => {
          const p = part as { type: string; toolName?: string; input?: unknown; output?: unknown };
          return { type: p.type, toolName: p.toolName, input: p.input, output: p.output };
        }),
      };
    }
    case "error": {
      try {
        await generateText({ model, prompt: "fail", maxRetries: 0 });
        return { error: null };
      } catch (error) {
        const e = error as Error & { statusCode?: unknown; isRetryable?: unknown; data?: unknown };
        return { name: e.name, message: e.message, isRetryable: e.isRetryable };
      }
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

try {
  process.stdout.write(`${JSON.stringify({ loaded, ok: await run() })}\n`);
} catch (error) {
  const e = error as Error;
  process.stdout.write(`${JSON.stringify({ loaded, thrown: e.message, name: e.name })}\n`);
}
