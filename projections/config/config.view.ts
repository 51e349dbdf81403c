/**
 * One node's configuration read model, kept by the runner: the `config` projection folds SVC_CONFIG from
 * the start and watches the active pointer in the coordination store. The stream's announcements decide the
 * activation history; a pointer read fills an epoch whose announcement has not landed yet (it may lag the
 * pointer, or be missing until the next writer repairs it), so the node never waits on the stream to apply.
 */
import type { Logger } from 'pino';
import { ActivePointer, revisionHeadHeader } from '../../schema/index.js';
import type { Bus, Kv, StoredMessage } from '../../bus/index.js';
import { runProjection, type Projection, type RunningProjection } from '../runner/runner.js';
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
  /** The current state (a rebuild replaces it). */
  readonly state: ConfigState;
  /** Resolves true once `predicate` holds (checked on every change), false after `timeoutMs`. */
  until(predicate: (state: ConfigState) => boolean, timeoutMs: number): Promise<boolean>;
  /** Called after every change of the active pointer. */
  onActivated(listener: (state: ConfigState) => void): () => void;
  /** The runner behind the view (`svc projections rebuild`, checkpoints, sequences). */
  readonly running: RunningProjection<ConfigState>;
  stop(): Promise<void>;
}

/** Bytes of history a replay window aims at: most of the stream is documents, each up to megabytes. */
const windowBytes = 4 * 1024 * 1024;

const decoder = new TextDecoder();

function decode(data: Uint8Array): unknown {
  return decodeText(decoder.decode(data));
}

function decodeText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export interface ConfigProjectionHooks {
  /** After a fold moved the active epoch. */
  readonly activated: (state: ConfigState) => void;
  /** After the active document was read back outside a fold. */
  readonly settled: () => void;
}

/** The `config` projection; `hooks` hear activations and documents read back. */
export function configProjection(
  opts: ConfigFollowOptions,
  hooks: ConfigProjectionHooks,
): Projection<ConfigState> {
  // A pointer naming a revision whose record this node has not read yet waits for that record: the
  // stream can lag the pointer watch (most of all while a stream elects a leader), and until it arrives
  // the prior revision keeps answering — a configured node never reads as unconfigured.
  const early = new Map<string, unknown>();
  let replaying = true;

  const settleActive = (state: ConfigState): Promise<void> =>
    loadActive(state).then(
      () => hooks.settled(),
      (error: unknown) => opts.logger.error({ err: error }, 'active revision could not be read back'),
    );

  const apply = (state: ConfigState, fact: ConfigFact): void => {
    const before = state.active?.epoch ?? 0;
    applyConfigFact(state, fact);
    if (fact.kind === 'stored' && early.size > 0) {
      for (const [id, pointer] of early) {
        if (!state.revisions.has(id)) continue;
        early.delete(id);
        applyConfigFact(state, { kind: 'pointer', pointer });
      }
    }
    if ((state.active?.epoch ?? 0) !== before) hooks.activated(state);
    // An active revision whose document the cache let go before it won is read back, then waiters see it;
    // while replaying only the last one is (by `settle`): a replay leaves documents unread.
    const pinned = state.payloads.active();
    if (!replaying && pinned && !pinned.resident) void settleActive(state);
  };

  return {
    name: 'config',
    version: 1,
    stream: opts.stream,
    replayWindowBytes: windowBytes,
    skipBodies: { subject: opts.subjects.revisionStored, header: revisionHeadHeader },
    init: () => {
      early.clear();
      replaying = true;
      // Documents are read back from the stream by sequence, so memory follows configuration, not history.
      return emptyConfigState({
        load: streamPayloadLoader(opts.bus, opts.stream, opts.subjects.revisionStored),
        ...(opts.cache ? { cache: opts.cache } : {}),
      });
    },
    apply: (state, message: StoredMessage) => {
      if (message.subject === opts.subjects.revisionStored) {
        const head = message.data.byteLength === 0 ? message.headers[revisionHeadHeader] : undefined;
        if (head !== undefined) {
          // Replay left the document unread: the header holds the metadata, the document is read on demand.
          apply(state, { kind: 'stored', record: decodeText(head), seq: message.seq, unread: true });
          return;
        }
        // The document stays bytes until read: most of a replayed history is never read.
        const split = splitRecord(message.data);
        apply(state, {
          kind: 'stored',
          record: split?.head ?? null,
          seq: message.seq,
          bytes: message.data.byteLength,
          payload: split?.payload ?? null,
        });
      } else if (message.subject === opts.subjects.revisionActivated)
        apply(state, { kind: 'activated', pointer: decode(message.data) });
    },
    watches: [
      {
        bucket: opts.coord,
        key: opts.activeKey,
        apply: (state, entry) => {
          const pointer = decode(entry.value);
          const id = ActivePointer.safeParse(pointer).data?.revision_id;
          if (id !== undefined && !state.revisions.has(id)) early.set(id, pointer);
          else apply(state, { kind: 'pointer', pointer });
        },
      },
    ],
    replayed: () => {
      replaying = false;
    },
    // The active document is held before anyone reads it.
    settle: (state) => settleActive(state),
  };
}

/** Starts the `config` projection; resolves once it has caught up with the stream and the pointer. */
export async function followConfig(opts: ConfigFollowOptions): Promise<ConfigView> {
  const listeners = new Set<(state: ConfigState) => void>();
  let running: RunningProjection<ConfigState> | null = null;
  const projection = configProjection(opts, {
    activated: (state) => {
      for (const listener of listeners) {
        try {
          listener(state);
        } catch (error) {
          opts.logger.error({ err: error }, 'config activation listener failed');
        }
      }
    },
    settled: () => running?.notify(),
  });
  const started = await runProjection({ bus: opts.bus, projection, logger: opts.logger });
  running = started;
  return {
    get state() {
      return started.state();
    },
    until: (predicate, timeoutMs) => started.when(predicate, timeoutMs),
    onActivated(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    running: started,
    async stop() {
      listeners.clear();
      await started.stop();
    },
  };
}
