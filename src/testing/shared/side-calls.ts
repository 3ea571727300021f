/**
 * Side calls: model requests an agent makes on its own (a router, a title generator, a memory or
 * suggestion sub-agent) that a test wants answered without consuming the scripted turns.
 *
 * @module
 */

import { safeMatch } from "./http.js";

/**
 * A rule that answers some requests outside the script. The fake servers check their side calls in
 * order before taking a scripted turn; the first whose `match` returns true answers the request
 * with its `turn`, and the request is recorded with `scripted: false` and `sideCall: name`.
 *
 * @typeParam R - The server's recorded request type.
 * @typeParam T - The server's turn type (a function turn receives the request).
 */
export interface SideCall<R, T> {
  /** Shown in the recorded request's `sideCall` and in errors, e.g. `"gemini-router"`. */
  name: string;
  /** True for the requests this rule answers. A predicate that throws counts as false. */
  match: (request: R) => boolean;
  /** The answer. Default: the server's default side-call answer (a short text). */
  turn?: T;
}

/**
 * The first side call matching a request.
 *
 * @param sideCalls - The rules, in priority order.
 * @param request - The request.
 * @returns The matching rule, or undefined.
 */
export function findSideCall<R, T>(
  sideCalls: readonly SideCall<R, T>[],
  request: R,
): SideCall<R, T> | undefined {
  return sideCalls.find((s) => safeMatch(s.match, request));
}

/**
 * A value that satisfies a JSON schema as far as a fake needs to: every `required` property (all
 * properties when none is listed), the first `enum`/`const` value, the `minimum` (else 1) for numbers,
 * `false` for booleans, `"fake"` for strings, `minItems` elements for arrays. Accepts both JSON
 * Schema type names and Gemini's upper-case `OBJECT`/`STRING`/… names, and `anyOf`/`oneOf` (first
 * branch). Used to answer JSON-mode side calls such as Gemini CLI's router classifier, whose
 * `complexity_score` must be ≥ 1.
 *
 * @param schema - The schema (anything; unknown shapes yield `null`).
 * @param depth - Recursion guard (internal).
 * @returns A JSON value.
 */
export function sampleFromJsonSchema(schema: unknown, depth = 0): unknown {
  if (depth > 16 || schema === null || typeof schema !== "object") return null;
  const s = schema as Record<string, unknown>;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const branches = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(branches) && branches.length > 0) return sampleFromJsonSchema(branches[0], depth + 1);
  const rawType = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  const type = typeof rawType === "string" ? rawType.toLowerCase() : s.properties ? "object" : undefined;
  switch (type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : Object.keys(props);
      const out: Record<string, unknown> = {};
      for (const key of required) out[key] = sampleFromJsonSchema(props[key] ?? {}, depth + 1);
      return out;
    }
    case "array": {
      const n = typeof s.minItems === "number" ? s.minItems : 0;
      return Array.from({ length: n }, () => sampleFromJsonSchema(s.items ?? {}, depth + 1));
    }
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 1;
    case "boolean":
      return false;
    case "string":
      return "fake";
    default:
      return null;
  }
}
