/**
 * The read loop every session runs over its transport.
 */
import type { Transport, TransportItem } from "../transport/transport.js";

/**
 * Implemented by transports that can hand each item to the reader as it is read, with no batch,
 * promise or await in between (the subprocess transport). Not part of the `Transport` interface:
 * `readTransport` is its only caller. It takes the place of `readMessages()`/`readBatches()` (the
 * same once-only rule holds) and settles as `readTransport` does.
 */
export const READ_INTO: unique symbol = Symbol("readInto");

/** A transport with the {@link READ_INTO} fast path. */
export interface DirectReadTransport {
  [READ_INTO](onItem: (item: TransportItem) => void): Promise<void>;
}

/**
 * Reads `transport` to its end, calling `onItem` with each item in order: through
 * {@link READ_INTO} when the transport has it, else `readBatches()` when it has that, else
 * `readMessages()`. Rejects with the transport's read failure (or what `onItem` threw).
 */
export async function readTransport(
  transport: Transport,
  onItem: (item: TransportItem) => void,
): Promise<void> {
  const direct = (transport as Partial<DirectReadTransport>)[READ_INTO];
  if (typeof direct === "function") {
    await direct.call(transport, onItem);
    return;
  }
  if (transport.readBatches) {
    for await (const batch of transport.readBatches()) for (const item of batch) onItem(item);
    return;
  }
  for await (const item of transport.readMessages()) onItem(item);
}
