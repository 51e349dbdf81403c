/**
 * Keeps one node's configuration read model current: replays SVC_CONFIG from the start, follows its
 * tail, and watches the active pointer in the coordination store. The stream's announcements decide the
 * activation history; a pointer read fills an epoch whose announcement has not landed yet (it may lag the
 * pointer, or be missing until the next writer repairs it), so the node never waits on the stream to apply.
 */
import type { Logger } from 'pino';
import { ActivePointer } from '../../schema/index.js';
import type { Bus, Kv, StoredMessage, StreamInfo, Subscription } from '../../bus/index.js';
import { streamPayloadLoader } from './config.load.js';
import { splitRecord } from './config.record.js';
import type { PayloadCacheLimits } from './config.payloads.js';
import {
  applyConfigFact,
  emptyConfigState,
  loadActive,
  type ConfigFact,
  type ConfigState,
} from './config.projection.js';
import { Waiters } from '../runner/waiters.js';

export interface ConfigFollowOptions {
  readonly bus: Bus;
  readonly coord: Kv;
  readonly stream: string;
  readonly subjects: { readonly revisionStored: string; readonly revisionActivated: string };
  readonly activeKey: string;
  readonly logger: Logger;
  /** Bounds of the document cache (default: config.payloads.ts). */
  readonly cache?: PayloadCacheLimits;
}

export interface ConfigView {
  readonly state: ConfigState;
  /** Resolves true once `predicate` holds (checked on every change), false after `timeoutMs`. */
  until(predicate: (state: ConfigState) => boolean, timeoutMs: number): Promise<boolean>;
  /** Called after every change of the active pointer. */
  onActivated(listener: (state: ConfigState) => void): () => void;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

function decode(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}

/** Bytes of history a replay window aims at: an engine reads a window whole before handing it over. */
const windowBytes = 4 * 1024 * 1024;

/**
 * Reads `[firstSeq, lastSeq]` in windows sized from the records seen so far, so a long history of large
 * documents never sits in memory whole (an engine may read a thousand records in one go) and a history
 * of small ones still takes few reads.
 */
async function replayInWindows(
  bus: Bus,
  stream: string,
  info: StreamInfo,
  onMessage: (message: StoredMessage) => void,
): Promise<void> {
  let seen = 0;
  let bytes = 0;
  for (let from = Math.max(1, info.firstSeq); from <= info.lastSeq;) {
    const average = seen === 0 ? 256 * 1024 : Math.max(1, bytes / seen);
    const size = Math.min(4096, Math.max(8, Math.floor(windowBytes / average)));
    const toSeq = Math.min(info.lastSeq, from + size - 1);
    for await (const message of bus.replay(stream, { fromSeq: from, toSeq })) {
      seen += 1;
      bytes += message.data.byteLength;
      onMessage(message);
    }
    from = toSeq + 1;
  }
}

/** Starts following; resolves once the read model has caught up with the stream and the pointer. */
export async function followConfig(opts: ConfigFollowOptions): Promise<ConfigView> {
  // Documents are read back from the stream by sequence, so memory follows configuration, not history.
  const state = emptyConfigState({
    load: streamPayloadLoader(opts.bus, opts.stream, opts.subjects.revisionStored),
    ...(opts.cache ? { cache: opts.cache } : {}),
  });
  const waiters = new Waiters(state);
  const listeners = new Set<(state: ConfigState) => void>();
  // A pointer naming a revision whose record this node has not read yet waits for that record: the
  // stream follower can lag the pointer watch (most of all while a stream elects a leader), and until it
  // arrives the prior revision keeps answering — a configured node never reads as unconfigured.
  const early = new Map<string, unknown>();
  const pointerFact = (pointer: unknown): void => {
    const id = ActivePointer.safeParse(pointer).data?.revision_id;
    if (id !== undefined && !state.revisions.has(id)) early.set(id, pointer);
    else apply({ kind: 'pointer', pointer });
  };
  const apply = (fact: ConfigFact): void => {
    const before = state.active?.epoch ?? 0;
    applyConfigFact(state, fact);
    if (fact.kind === 'stored' && early.size > 0) {
      for (const [id, pointer] of early) {
        if (!state.revisions.has(id)) continue;
        early.delete(id);
        applyConfigFact(state, { kind: 'pointer', pointer });
      }
    }
    if ((state.active?.epoch ?? 0) !== before) {
      for (const listener of listeners) {
        try {
          listener(state);
        } catch (error) {
          opts.logger.error({ err: error }, 'config activation listener failed');
        }
      }
    }
    waiters.wake();
    // An active revision whose document the cache let go before it won is read back, then waiters see it.
    const pinned = state.payloads.active();
    if (pinned && !pinned.resident) void settleActive();
  };
  const settleActive = (): Promise<void> =>
    loadActive(state).then(
      () => waiters.wake(),
      (error: unknown) => opts.logger.error({ err: error }, 'active revision could not be read back'),
    );

  const onMessage = (message: StoredMessage): void => {
    if (message.subject === opts.subjects.revisionStored) {
      // The document stays bytes until read: most of a replayed history is never read.
      const split = splitRecord(message.data);
      apply({
        kind: 'stored',
        record: split?.head ?? null,
        seq: message.seq,
        bytes: message.data.byteLength,
        payload: split?.payload ?? null,
      });
    } else if (message.subject === opts.subjects.revisionActivated)
      apply({ kind: 'activated', pointer: decode(message.data) });
  };

  // 1. everything stored so far, in order, a window at a time, then the live tail from where it ended
  const info = await opts.bus.streamInfo(opts.stream);
  await replayInWindows(opts.bus, opts.stream, info, onMessage);
  const tail: Subscription = await opts.bus.follow(opts.stream, { fromSeq: info.lastSeq + 1 }, onMessage);

  // 2. the pointer itself
  let pointerSeen: () => void = () => undefined;
  const pointerRead = new Promise<void>((resolve) => (pointerSeen = resolve));
  const initial = await opts.coord.get(opts.activeKey);
  if (initial) pointerFact(decode(initial.value));
  pointerSeen();
  const watch = await opts.coord.watch(
    (entry) => {
      if (entry.operation === 'put') pointerFact(decode(entry.value));
    },
    { key: opts.activeKey, initial: false },
  );
  await pointerRead;
  // 3. the active document is held before anyone reads it
  await settleActive();

  return {
    state,
    until: (predicate, timeoutMs) => waiters.until(predicate, timeoutMs),
    onActivated(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      await tail.stop();
      await watch.stop();
      waiters.clear();
      listeners.clear();
    },
  };
}
