/**
 * Streaming input: feed turns one by one into a single long-lived session. The CLI stays up until
 * the input stream ends, and every turn's result is delivered.
 *   npx tsx examples/streaming-mode.ts
 */
import { query, type StreamedUserInput } from "../src/index.js";

const questions = ["Name a prime number.", "Now name a bigger one."];
let answered = 0;
let next: (() => void) | undefined;

async function* conversation(): AsyncGenerator<StreamedUserInput> {
  for (const question of questions) {
    yield question;
    // Wait for this turn's result before asking the next question.
    await new Promise<void>((resolve) => {
      next = resolve;
    });
  }
}

for await (const message of query({ prompt: conversation() })) {
  if (message.type === "result") {
    answered += 1;
    console.log(`turn ${answered}: ${message.result}`);
    next?.();
  }
}
console.log(`${answered} turns in one session`);
