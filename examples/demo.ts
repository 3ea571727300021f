/**
 * The main job: a real Claude Code session, offline, against the built-in scripted model — the same
 * as `code-agent --demo` (and `npm run demo`).
 *
 *   npm run demo                        # the scripted model asks to run `touch hello.txt` (needs your
 *                                       # permission in a terminal; denied without one) and calls an
 *                                       # in-process MCP tool
 *   npm run demo -- --allow Bash        # allow the shell command without asking
 *   npm run demo -- --thinking --json   # show the thinking / print the messages as JSON lines
 *   npx tsx examples/demo.ts            # this file: the same thing
 *
 * The command is built on the public API only (`query()`, `AgentSdkClient`, `canUseTool`,
 * `createSdkMcpServer`); see src/cli/.
 */
import { runCli } from "../src/cli/run.js";

process.exitCode = await runCli(["--demo", ...process.argv.slice(2)]);
