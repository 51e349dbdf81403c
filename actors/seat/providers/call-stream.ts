/**
 * Turns a producer that pushes deltas and settles with a result into an `LlmStream`. The producer
 * starts at once and deltas are buffered, so a caller may iterate, await `result()`, or both; an
 * iterator that stops early does not stop the call (abort its signal for that).
 */
import type { LlmDelta, LlmResult, LlmStream } from './llm.types.js';

export function streamFrom(produce: (emit: (delta: LlmDelta) => void) => Promise<LlmResult>): LlmStream {
  const buffer: LlmDelta[] = [];
  let settled = false;
  let failure: { error: unknown } | null = null;
  let waiting: (() => void)[] = [];
  const signal = (): void => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };

  const result = produce((delta) => {
    if (settled) return;
    buffer.push(delta);
    signal();
  }).then(
    (value) => {
      settled = true;
      signal();
      return value;
    },
    (error: unknown) => {
      settled = true;
      failure = { error };
      signal();
      throw error;
    },
  );
  // The failure reaches whoever reads: the iterator or result(). Unread, it must not crash the process.
  result.catch(() => undefined);

  return {
    result: () => result,
    async *[Symbol.asyncIterator]() {
      let read = 0;
      for (;;) {
        while (read < buffer.length) {
          yield buffer[read] as LlmDelta;
          read += 1;
        }
        if (settled) {
          if (failure) throw failure.error;
          return;
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
}
