/**
 * A copy of a string that shares no storage with the string it came from.
 *
 * V8 makes a substring of 13 or more characters a view into its parent, and the line splitter
 * decodes a whole chunk of output at once and slices its lines out of it: a line (or the head of
 * one) kept for long would keep the whole chunk's text alive. What is kept past the moment a line is
 * read (an error's `lineHead`, the stderr tail) is copied with this, so it holds only itself.
 */
export function detachedString(text: string): string {
  // UTF-16LE round-trips every string exactly, lone surrogates included.
  return text.length < 13 ? text : Buffer.from(text, "utf16le").toString("utf16le");
}
