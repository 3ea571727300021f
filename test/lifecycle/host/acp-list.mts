/**
 * `listSessions` of `code-agent-sdk/acp` in a host of its own (acp-list-host.test.ts), run with
 * `--unhandled-rejections=strict`, against the stand-in agent (test/unit/acp/config-agent.mjs): a
 * listing that succeeds, one the agent does not declare, one whose agent exits mid-list, one never
 * answered (bounded by controlTimeoutMs) and one aborted while a page is pending. The process must
 * print its report and exit 0 by itself: an unhandled rejection kills it, a timer or listener left
 * behind keeps it alive.
 *
 * Usage: node --unhandled-rejections=strict --import tsx acp-list.mts <agent launcher>
 */
import { type AcpListSessionsOptions, listSessions } from "../../../src/backends/acp/index.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";

const agent = process.argv[2] ?? "";
const LISTS = { sessionCapabilities: { list: {} } };
const page = { sessions: [{ sessionId: "s-1", cwd: "/w" }], nextCursor: "page-1" };

function options(profile: unknown, extra: Partial<AcpListSessionsOptions> = {}): AcpListSessionsOptions {
  return {
    acp: { command: agent },
    env: { CONFIG_AGENT_PROFILE: JSON.stringify(profile) },
    inheritEnv: false,
    ...extra,
  };
}

async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    return `ok ${JSON.stringify(await run)}`;
  } catch (error) {
    return (error as Error).constructor.name;
  }
}

const controller = new AbortController();
const report = {
  listed: await outcome(listSessions(options({ caps: LISTS, listPages: [page, { sessions: [] }] }))),
  undeclared: await outcome(listSessions(options({}))),
  exitsMidList: await outcome(listSessions(options({ caps: LISTS, listPages: [page], listExitsAt: 1 }))),
  neverAnswered: await outcome(
    listSessions(options({ caps: LISTS, listHangs: true }, { controlTimeoutMs: 3_000 })),
  ),
  aborted: await outcome(
    listSessions(
      options(
        { caps: LISTS, listHangs: true },
        {
          signal: controller.signal,
          stderr: (line) => {
            if (line.startsWith("list-requested")) controller.abort();
          },
        },
      ),
    ),
  ),
  groupsLeft: liveGroupCount(),
};
console.log(JSON.stringify(report));
