// Module resolve hook for the real-clients test: `@anthropic-ai/claude-agent-sdk`, wherever it is
// imported from (the provider pins its own copy), resolves to the module given as `data.target`.
let target;
export function initialize(data) {
  target = data.target;
}
export async function resolve(specifier, context, next) {
  // Through the next resolver, so a TypeScript loader (tsx) sees the target as one of its files.
  if (specifier === "@anthropic-ai/claude-agent-sdk") return next(target, context);
  return next(specifier, context);
}
