/**
 * The read loop every session runs over its transport.
 */

import { approximateSize } from "../wire/approximate-size.js";
import type { ReadFlow } from "./read-flow.js";
import type { Transport, TransportItem } from "./transport.js";

/**
 * Implemented by transports that can hand each item to the reader as it is read, with no batch,
 * promise or await in between (the subprocess transport). Not part of the `Transport` interface:
 * `readTransport` is its only caller. It takes the place of `readMessages()`/`readBatches()` (the
 * same once-only rule holds) and settles as `readTransport` does.
 */
export const READ_INTO: unique symbol = Symbol("readInto");

/** A transport with the {@link READ_INTO} fast path. */
export interface DirectReadTransport {
  /** With `flow`, counts the bytes it reads there and pauses and resumes as it says. */
  [READ_INTO](onItem: (item: TransportItem) => void, flow?: ReadFlow): Promise<void>;
}

/**
 * Reads `transport` to its end, calling `onItem` with each item in order: through
 * {@link READ_INTO} when the transport has it, else `readBatches()` when it has that, else
 * `readMessages()`. Rejects with the transport's read failure (or what `onItem` threw).
 *
 * With `flow`, reading obeys the session's backpressure: the direct path pauses the pipe, the
 * others stop pulling while the flow is paused (counting each item's approximate size, as they
 * have no bytes to count).
 */
export async function readTransport(
  transport: Transport,
  onItem: (item: TransportItem) => void,
  flow?: ReadFlow,
): Promise<void> {
  const direct = (transport as Partial<DirectReadTransport>)[READ_INTO];
  if (typeof direct === "function") {
    await direct.call(transport, onItem, flow);
    return;
  }
  const counted = flow === undefined ? onItem : countedBy(flow, onItem);
  if (transport.readBatches) {
    for await (const batch of transport.readBatches()) {
      for (const item of batch) counted(item);
      if (flow?.isPaused) await flow.flowing();
    }
    return;
  }
  for await (const item of transport.readMessages()) {
    counted(item);
    if (flow?.isPaused) await flow.flowing();
  }
}

function countedBy(flow: ReadFlow, onItem: (item: TransportItem) => void): (item: TransportItem) => void {
  return (item) => {
    flow.chunkRead(approximateSize(item));
    onItem(item);
  };
}
