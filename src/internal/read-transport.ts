/**
 * The read loop every session runs over its transport.
 */
import type { Transport, TransportItem } from "../transport/transport.js";

/**
 * Reads `transport` to its end, calling `onItem` with each item in order: through `readBatches()`
 * when the transport has it, else `readMessages()`. Rejects with the transport's read failure.
 */
export async function readTransport(
  transport: Transport,
  onItem: (item: TransportItem) => void,
): Promise<void> {
  if (transport.readBatches) {
    for await (const batch of transport.readBatches()) for (const item of batch) onItem(item);
    return;
  }
  for await (const item of transport.readMessages()) onItem(item);
}
