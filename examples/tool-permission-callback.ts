/**
 * canUseTool: decide every tool call the CLI would ask a human about — allow, rewrite the input,
 * deny, or deny and stop the turn.
 *   npx tsx examples/tool-permission-callback.ts
 */
import { type CanUseTool, query } from "../src/index.js";

const policy: CanUseTool = async (toolName, input, { suggestions }) => {
  console.log(`[permission] ${toolName} ${JSON.stringify(input)} (${suggestions.length} suggestions)`);
  if (toolName === "Write" && String(input.file_path).endsWith(".env")) {
    return { behavior: "deny", message: "Never write .env files", interrupt: true };
  }
  if (toolName === "Bash") {
    // Rewrite: force a dry run of any npm publish.
    const command = String(input.command).replace(/^npm publish(?!.*--dry-run)/, "npm publish --dry-run");
    return { behavior: "allow", updatedInput: { ...input, command } };
  }
  return { behavior: "allow", updatedInput: input };
};

for await (const message of query({ prompt: "Publish the package.", options: { canUseTool: policy } })) {
  if (message.type === "result")
    console.log(`result: ${message.result} (denials: ${message.permissionDenials?.length ?? 0})`);
}
