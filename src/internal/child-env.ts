/**
 * The base environment of every CLI process, shared by all backends.
 */
import type { AgentOptions } from "../options.js";

/**
 * `process.env` (unless `inheritEnv: false`), then `options.env` on top; an `undefined` value
 * removes a variable.
 */
export function buildChildEnv(options: Pick<AgentOptions, "env" | "inheritEnv">): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.inheritEnv !== false) {
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
