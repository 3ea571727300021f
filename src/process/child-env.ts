/**
 * The base environment of every CLI process, shared by all backends.
 */
import type { AgentOptions } from "../options.js";

/**
 * `process.env` (unless `inheritEnv: false`), then `options.env` on top; an `undefined` value
 * removes a variable.
 */
export function buildChildEnv(options: Pick<AgentOptions, "env" | "inheritEnv">): Record<string, string> {
  const env: Record<string, string> = options.inheritEnv !== false ? definedOnly(process.env) : {};
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** A copy of `env` without its `undefined` entries: the shape `child_process` takes. */
export function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
