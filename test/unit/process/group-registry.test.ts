import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  atHostExit,
  registerGroup,
  SIGNAL_HOOKS_LINGER_MS,
  signalHooksActive,
  unregisterGroup,
} from "../../../src/process/group-registry.js";

/** A pid no process has (above Linux's pid_max limit of 2^22). */
const NO_SUCH_PID = 2 ** 22 + 17;

const listeners = () => ({
  SIGINT: process.listenerCount("SIGINT"),
  SIGTERM: process.listenerCount("SIGTERM"),
  SIGHUP: process.listenerCount("SIGHUP"),
});

describe("the group registry's signal listeners", () => {
  let before: ReturnType<typeof listeners>;
  beforeEach(() => {
    vi.useFakeTimers();
    // Whatever an earlier test left lingering is gone first.
    vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS);
    expect(signalHooksActive()).toBe(false);
    before = listeners();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are added with the first group and removed a moment after the last one is gone", () => {
    registerGroup(NO_SUCH_PID);
    expect(signalHooksActive()).toBe(true);
    const during = listeners();
    expect(during).toEqual({
      SIGINT: before.SIGINT + 1,
      SIGTERM: before.SIGTERM + 1,
      SIGHUP: before.SIGHUP + 1,
    });
    unregisterGroup(NO_SUCH_PID);
    expect(listeners()).toEqual(during);
    vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS - 1);
    expect(signalHooksActive()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(signalHooksActive()).toBe(false);
    expect(listeners()).toEqual(before);
  });

  it("are added once for groups that come and go one after another", () => {
    for (let i = 0; i < 5; i++) {
      registerGroup(NO_SUCH_PID + i);
      unregisterGroup(NO_SUCH_PID + i);
      vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS / 2);
    }
    // Never more than one listener per signal, however the releases and the timer interleave.
    expect(listeners().SIGTERM).toBe(before.SIGTERM + 1);
    registerGroup(NO_SUCH_PID);
    vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS * 3);
    expect(signalHooksActive()).toBe(true);
    unregisterGroup(NO_SUCH_PID);
    vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS);
    expect(listeners()).toEqual(before);
  });

  it("stay while a clean-up is registered, and leave after it is dropped", () => {
    const drop = atHostExit(() => {});
    registerGroup(NO_SUCH_PID);
    unregisterGroup(NO_SUCH_PID);
    vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS * 2);
    expect(signalHooksActive()).toBe(true);
    drop();
    vi.advanceTimersByTime(SIGNAL_HOOKS_LINGER_MS);
    expect(signalHooksActive()).toBe(false);
    expect(listeners()).toEqual(before);
  });
});
