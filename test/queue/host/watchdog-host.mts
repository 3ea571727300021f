/**
 * Test host for test/queue/watchdog.test.ts: starts `sleep` in a process group of its own and
 * registers it, then starts the queue worker's watchdog and SIGKILLs itself in the same tick, before
 * anything could be written to the watchdog's pipe. Prints `<sleep pid> <watchdog pid>` first.
 */
import { spawn } from "node:child_process";
import { registerGroup } from "../../../src/process/group-registry.js";
import { startWatchdog } from "../../../src/queue/watchdog.js";

const sleeper = spawn("sleep", ["1000"], { detached: true, stdio: "ignore" });
registerGroup(sleeper.pid!);
const watchdog = startWatchdog((error) => console.error(error));
process.stdout.write(`${sleeper.pid} ${watchdog?.pid}\n`, () => process.kill(process.pid, "SIGKILL"));
