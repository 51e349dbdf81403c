/**
 * A bounded replay read in windows sized from the records seen so far: an engine may read a thousand
 * records in one go, so a long history of large records is read a few megabytes at a time, and a history
 * of small ones still takes few reads.
 */
import type { Bus, ReplayOptions, StoredMessage } from '../../bus/index.js';

export async function* replayInWindows(
  bus: Bus,
  stream: string,
  opts: ReplayOptions & { readonly fromSeq: number; readonly toSeq: number },
  windowBytes: number,
): AsyncIterable<StoredMessage> {
  let seen = 0;
  let bytes = 0;
  for (let from = Math.max(1, opts.fromSeq); from <= opts.toSeq;) {
    const average = seen === 0 ? 256 * 1024 : Math.max(1, bytes / seen);
    const size = Math.min(4096, Math.max(8, Math.floor(windowBytes / average)));
    const toSeq = Math.min(opts.toSeq, from + size - 1);
    for await (const message of bus.replay(stream, { ...opts, fromSeq: from, toSeq })) {
      seen += 1;
      bytes += message.data.byteLength;
      yield message;
    }
    from = toSeq + 1;
  }
}
