/**
 * Imports one entry of the package (a path relative to the repository root) and reports what the
 * import started: every async resource created while it loaded (timers, immediates, sockets,
 * child processes, …; promises left out), and what is still active right after. Then it ends on
 * its own: anything the import left running would keep it up (the test bounds the wait).
 */
import { createHook } from "node:async_hooks";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const entry = process.argv[2];
if (!entry) throw new Error("usage: import-entry.mts <entry file>");

const created: string[] = [];
let recording = true;
// Only what the package's own code creates: on Node ≥ 22 the TypeScript loader's module hooks
// create fs requests, ticks, immediates and a worker of their own while the entry loads.
const source = `${resolve("src")}/`;
const hook = createHook({
  init(_id, type) {
    if (!recording || type === "PROMISE") return;
    const stack = { stack: "" };
    Error.captureStackTrace(stack);
    if (stack.stack.includes(source)) created.push(type);
  },
}).enable();
Error.stackTraceLimit = 50;

const before = process.getActiveResourcesInfo();
const module = (await import(pathToFileURL(resolve(entry)).href)) as Record<string, unknown>;
// The import's own module evaluation is over; what it scheduled is in `created` now.
recording = false;
hook.disable();
const after = process.getActiveResourcesInfo();

console.log(JSON.stringify({ entry, exports: Object.keys(module).length, created, before, after }));
