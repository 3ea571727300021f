/**
 * A recording scenario run as its own Node process (by recording.test.ts) under
 * `--unhandled-rejections=strict`: it prints one JSON line `{ report }` and must then exit 0 on
 * its own. A synchronous open of a FIFO would block it forever; an unhandled rejection kills it.
 *
 * Usage: node --unhandled-rejections=strict --import tsx recording-host.mts <scenario> <path>
 *   fifo: `record` names a FIFO with no reader → the query fails with RecordingError, at once.
 *   deep: the CLI's output carries a 20 000-deep JSON value → the session ends with its result,
 *     the recording has a gap line, onError got a RecordingError.
 */
import { query } from "../../../../src/index.js";
import { RecordingError } from "../../../../src/transport/index.js";
import { cliLike, resultLine, ScriptedTransport } from "../../support/scripted-transport.js";

const [scenario, path] = process.argv.slice(2) as [string, string];
const started = performance.now();

function deeplyNested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { next: value };
  return value;
}

async function run(): Promise<Record<string, unknown>> {
  const errors: string[] = [];
  const transport = new ScriptedTransport(
    cliLike((t) => {
      t.emit({ type: "system", subtype: "status", status: null, deep: deeplyNested(20_000) });
      t.emit(resultLine("after the deep line"));
    }),
  );
  const options = {
    transport,
    record: {
      path,
      onError: (error: RecordingError) => {
        errors.push(`${error instanceof RecordingError}:${error.name}:${error.message}`);
      },
    },
  };
  try {
    let result: unknown;
    for await (const message of query({ prompt: "hi", options })) {
      if (message.type === "result") result = message.result;
    }
    return { ok: true, result, errors };
  } catch (error) {
    return {
      ok: false,
      errorName: (error as Error).name,
      isRecordingError: error instanceof RecordingError,
      message: (error as Error).message,
      errors,
    };
  }
}

const report = scenario === "fifo" || scenario === "deep" ? await run() : { unknown: scenario };
console.log(JSON.stringify({ report, ms: Math.round(performance.now() - started) }));
