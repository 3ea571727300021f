/**
 * The example chat app (examples/ai-sdk-chat) in headless Chromium (Debian's `chromium`, driven by
 * playwright-core), against the real Claude Code CLI and a scripted model: type a prompt, see the
 * scripted answer and a live tool call, a second turn that resumes the session, stop mid-answer,
 * no CLI process left, and a message to codex through the backend picker.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "../../examples/ai-sdk-chat/server.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import type { FakeAnthropicServer, FakeOpenAIServer } from "../../src/testing/index.js";
import { startFakeAnthropic, startFakeOpenAI } from "../../src/testing/index.js";

const CHROMIUM = "/usr/bin/chromium";
/**
 * The flags this machine's Chromium needs as root, offline (see the environment notes); Playwright
 * gives it a new empty profile directory of its own.
 */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
  "the AI SDK chat example in headless Chromium",
  () => {
    let model: FakeAnthropicServer;
    let api: FakeOpenAIServer;
    let server: ChatServer;
    let browser: Browser;
    let cwd: string;

    beforeAll(async () => {
      model = await startFakeAnthropic({
        turns: [],
        defaultTurn: (request) => {
          const text = request.lastUserText;
          // The follow-up after the tool ran: the last user message holds only the tool result.
          if (text === "") return { text: "Tool done: it printed hi." };
          if (text.includes("run the tool"))
            return { toolUse: { name: "Bash", input: { command: "echo hi-from-the-page" } } };
          if (text.includes("talk slowly")) return { stall: true, text: "partial answer " };
          return { text: "Hello from the scripted model" };
        },
      });
      cwd = mkdtempSync(join(tmpdir(), "cas-ai-chat-"));
      api = await startFakeOpenAI({ defaultTurn: { text: "Hello from the scripted codex model" } });
      const codexEnv = api.codexHome().env;
      server = await startChatServer((backend) =>
        backend === "claude" ? { cwd, env: model.env(), allowedTools: ["Bash"] } : { cwd, env: codexEnv },
      );
      browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await model?.close();
      await api?.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    it("answers, shows a live tool call, resumes the session, stop ends the CLI, the picker reaches codex", async () => {
      const page = await browser.newPage();
      await page.goto(server.url);

      await page.fill("#prompt", "please run the tool");
      await page.click("#send");
      const tool = page.locator('.tool[data-tool="Bash"][data-state="output-available"]');
      await tool.waitFor({ timeout: 60_000 });
      expect(await tool.textContent()).toContain("hi-from-the-page");
      await page
        .locator(".message[data-role=assistant] .text", { hasText: "Tool done" })
        .waitFor({ timeout: 60_000 });
      await page.locator('#status[data-status="ready"]').waitFor();
      const turnsBefore = model.turnRequests.length;

      // The second turn resumes the CLI session: only the new message is the model's last user text.
      await page.fill("#prompt", "talk slowly");
      await page.click("#send");
      await page
        .locator(".message[data-role=assistant] .text", { hasText: "partial answer" })
        .waitFor({ timeout: 60_000 });
      expect(model.turnRequests[turnsBefore]?.lastUserText).toBe("talk slowly");
      expect(JSON.stringify(model.turnRequests[turnsBefore]?.body)).toContain("Tool done: it printed hi.");
      expect(liveGroupCount()).toBe(1);

      await page.click("#stop");
      await page.locator('#status[data-status="ready"]').waitFor();
      await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);

      // The backend picker: the next message goes to codex (a new conversation there: the claude
      // session is not codex's to resume, so the history is replayed as text).
      const bodies: string[] = [];
      page.on("response", async (r) => {
        if (r.url().endsWith("/api/chat"))
          bodies.push(`${r.status()} ${(await r.text().catch(() => "?")).slice(0, 1500)}`);
      });
      await page.selectOption("#backend", "codex");
      await page.fill("#prompt", "hello codex");
      await page.click("#send");
      await page
        .locator(".message[data-role=assistant] .text", { hasText: "Hello from the scripted codex model" })
        .waitFor({ timeout: 20_000 })
        .catch(async (e: unknown) => {
          throw new Error(
            `${String(e)}\n${await page.locator("body").innerText()}\nrequests: ${api.requests.length}\n${bodies.join("\n")}`,
          );
        });
      await page.locator('#status[data-status="ready"]').waitFor();
      expect(api.turnRequests.at(-1)?.lastUserText).toContain("hello codex");
      expect(api.turnRequests.at(-1)?.lastUserText).toContain("User: please run the tool");
      await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);

      mkdirSync(join(process.cwd(), ".tmp"), { recursive: true });
      await page.screenshot({ path: join(process.cwd(), ".tmp", "ai-sdk-chat.png"), fullPage: true });
      await page.close();
    });
  },
);
