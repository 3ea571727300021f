/**
 * Hook callbacks ↔ the ids the CLI calls them by. The ids (`hook_0`, `hook_1`, …) are assigned in
 * one pass so the `initialize` config and the routing table can never disagree.
 */

import type { RawObject } from "../../messages.js";
import type { HookCallback, HookInput, HookJSONOutput, HookMap } from "./hooks.js";

/** The `hooks` field of the initialize request. */
export type InitializeHooksConfig = Record<
  string,
  { matcher?: string; hookCallbackIds: string[]; timeout?: number; onFailure?: string }[]
>;

/** Hook callbacks by id plus the config announcing them. */
export class HookRegistry {
  readonly config: InitializeHooksConfig | null;
  private readonly callbacks = new Map<string, HookCallback>();

  constructor(hooks: HookMap | undefined) {
    if (!hooks || Object.keys(hooks).length === 0) {
      this.config = null;
      return;
    }
    const config: InitializeHooksConfig = {};
    for (const [event, matchers] of Object.entries(hooks)) {
      if (!matchers?.length) continue;
      config[event] = matchers.map((m) => {
        const hookCallbackIds = m.hooks.map((callback) => {
          const id = `hook_${this.callbacks.size}`;
          // Each callback is registered under its event, so the CLI only ever hands it that event's input.
          this.callbacks.set(id, callback as HookCallback);
          return id;
        });
        return {
          ...(m.matcher !== undefined ? { matcher: m.matcher } : {}),
          hookCallbackIds,
          ...(m.timeout !== undefined ? { timeout: m.timeout } : {}),
          ...(m.onFailure !== undefined ? { onFailure: m.onFailure } : {}),
        };
      });
    }
    this.config = Object.keys(config).length ? config : null;
  }

  /** Answers a `hook_callback` control request. */
  async handle(request: RawObject, signal: AbortSignal): Promise<RawObject> {
    const id = String(request.callback_id ?? "");
    const callback = this.callbacks.get(id);
    if (!callback) throw new Error(`No hook callback registered for id ${id}`);
    const toolUseId = typeof request.tool_use_id === "string" ? request.tool_use_id : undefined;
    const output = await callback((request.input ?? {}) as HookInput, toolUseId, { signal });
    return hookOutputToWire(output);
  }
}

/**
 * Serializes a hook's answer. TypeScript callers already use the CLI's keys (`continue`, `async`);
 * the `continue_` / `async_` spellings other SDKs use are accepted too.
 */
export function hookOutputToWire(output: HookJSONOutput | undefined | null): RawObject {
  if (output === undefined || output === null) return {};
  if (typeof output !== "object") throw new Error(`A hook must return an object, got ${typeof output}`);
  const wire: RawObject = {};
  for (const [key, value] of Object.entries(output)) {
    if (value === undefined) continue;
    if (key === "continue_") wire.continue = value;
    else if (key === "async_") wire.async = value;
    else wire[key] = value;
  }
  return wire;
}
