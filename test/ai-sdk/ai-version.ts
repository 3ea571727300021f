/**
 * The `ai` release the provider tests run under: `ai` 6 on Node 20, `ai` 7 (the `ai-v7` alias,
 * which needs Node 22) on Node 22 and later, so the suite's Node 22/24 runs (.ci/run) repeat every
 * scenario under `ai` 7. Typed as `ai` 6: the calls the tests make are the same in both.
 */
type Ai = typeof import("ai");

const major = Number(process.versions.node.split(".")[0]);

/** The major version of `ai` in use. */
export const AI_MAJOR: 6 | 7 = major >= 22 ? 7 : 6;

/** The `ai` module in use. */
export const ai: Ai = (AI_MAJOR === 7 ? await import("ai-v7") : await import("ai")) as unknown as Ai;
