/**
 * What every adapter reports about one session: how many assistant messages reached the consumer,
 * how much text they carried (touching it keeps the comparison honest: every implementation must
 * hand over a usable message), and when the first one arrived.
 */
export function newCount() {
  return { assistant: 0, textChars: 0, firstAt: 0, other: 0 };
}

/** Records one assistant message carrying `chars` characters of text. */
export function seeAssistant(count, chars) {
  if (count.assistant === 0) count.firstAt = performance.now();
  count.assistant += 1;
  count.textChars += chars;
}
