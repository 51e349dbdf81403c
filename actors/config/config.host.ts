/**
 * The config writer's host: answers `svc.cmd.config.write`, runs one write machine per command and
 * executes its effects on the bus — the revision appended to SVC_CONFIG, the compare-and-set of the
 * active pointer in the coordination store (log-order arbitration inside `Kv.update`), and the
 * activation announcement. Every node runs one; the compare-and-set makes them agree. The announcements
 * on SVC_CONFIG are the activation history every reader folds (ops/config.md "One history").
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  KvConflictError,
  serveCommand,
  Streams,
  type Bus,
  type Kv,
  type Subscription,
} from '../../bus/index.js';
import {
  ActivePointer,
  Commands,
  type ConfigWrite,
  type ConfigWriteReply,
  type RevisionRecord,
  revisionHeadHeader,
} from '../../schema/index.js';
import { configSubjects, activePointerKey } from './config.subjects.js';
import {
  configWriteMachine,
  type ActivateInput,
  type ActivateOutput,
  type ActiveRead,
  type Validation,
} from './config-write.machine.js';

export type Validate = (command: ConfigWrite) => Validation | Promise<Validation>;

export interface ConfigWriterOptions {
  readonly bus: Bus;
  /** The coordination bucket holding the active pointer. */
  readonly coord: Kv;
  readonly validate: Validate;
  /** With a keyring: the stored form of a document (sealed); without, the document itself. */
  readonly storedPayload?: (document: unknown, revisionId: string) => unknown;
  readonly logger: Logger;
  readonly now?: () => Date;
  /**
   * A stored revision's document (opened), for judging a create-only entity write on the revision it lost
   * to; absent, or failing, such a write answers its lost race (409).
   */
  readonly openRevision?: (revisionId: string) => Promise<unknown>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads the active pointer; a malformed record reads as an error, never as "nothing active". */
export async function readActive(coord: Kv): Promise<ActiveRead | null> {
  const entry = await coord.get(activePointerKey);
  if (!entry) return null;
  const pointer = ActivePointer.parse(JSON.parse(decoder.decode(entry.value)));
  return { pointer, storeRevision: entry.revision };
}

/**
 * Announces `pointer` on SVC_CONFIG unless the stream already carries its epoch or a newer one. A writer
 * that won an epoch and stopped before announcing it leaves a gap a replay would never fill once the
 * pointer moves on; the next writer closes it before claiming the following epoch. The message id makes
 * a repair racing the late original one record (within the stream's duplicate window; past it a second
 * identical claim is harmless, the first in stream order wins).
 */
async function announceIfMissing(bus: Bus, pointer: ActivePointer): Promise<void> {
  const last = await bus.lastMessage(Streams.Config, configSubjects.revisionActivated);
  const lastEpoch = last ? (ActivePointer.safeParse(decodeJson(last.data)).data?.epoch ?? 0) : 0;
  if (lastEpoch >= pointer.epoch) return;
  await bus.publish(configSubjects.revisionActivated, encoder.encode(JSON.stringify(pointer)), {
    msgId: `activated-${pointer.epoch}`,
  });
}

function decodeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}

/** Runs one write to its end; throws only when the bus fails (the outcome is then unknown). */
export async function executeWrite(
  opts: ConfigWriterOptions,
  command: ConfigWrite,
): Promise<ConfigWriteReply> {
  const { bus, coord, logger } = opts;
  const revisionId = command.revision_id ?? randomUUID();
  const active = await readActive(coord);
  const machine = configWriteMachine.provide({
    actors: {
      validate: fromPromise<Validation, ConfigWrite>(async ({ input }) => opts.validate(input)),
      storeRevision: fromPromise<void, RevisionRecord>(async ({ input }) => {
        const record = opts.storedPayload
          ? { ...input, payload: opts.storedPayload(input.payload, input.revision_id) }
          : input;
        const { payload: _payload, ...head } = input;
        await bus.publish(configSubjects.revisionStored, encoder.encode(JSON.stringify(record)), {
          msgId: `revision-${input.revision_id}`,
          headers: { [revisionHeadHeader]: JSON.stringify(head) },
        });
      }),
      activate: fromPromise<ActivateOutput, ActivateInput>(async ({ input }) => {
        // 1. the parent's activation is on the stream; 2. claim the next epoch; 3. announce it
        if (active) await announceIfMissing(bus, active.pointer);
        const value = encoder.encode(JSON.stringify(input.pointer));
        try {
          if (input.expectedStoreRevision === 0) await coord.create(activePointerKey, value);
          else await coord.update(activePointerKey, value, input.expectedStoreRevision);
        } catch (error) {
          if (!(error instanceof KvConflictError)) throw error;
          const now = await readActive(coord);
          return { won: false, activeRevisionId: now?.pointer.revision_id ?? null };
        }
        await bus.publish(configSubjects.revisionActivated, value, {
          msgId: `activated-${input.pointer.epoch}`,
        });
        return { won: true };
      }),
      ...(opts.openRevision
        ? { openRevision: fromPromise<unknown, string>(async ({ input }) => opts.openRevision!(input)) }
        : {}),
    },
  });
  const actor = createActor(machine, {
    input: {
      command,
      active,
      revisionId,
      now: (opts.now?.() ?? new Date()).toISOString(),
    },
  });
  const done = toPromise(actor);
  actor.start();
  const reply = await done;
  const snapshot = actor.getSnapshot();
  if (snapshot.value === 'failed') {
    // The store or the activation did not answer: the revision may or may not be stored (outcome_unknown).
    logger.warn({ err: snapshot.error, revision_id: revisionId }, 'config write outcome unknown');
    throw new Error(`configuration store unavailable; revision ${revisionId} may or may not be stored`, {
      cause: snapshot.error,
    });
  }
  logger.info(
    {
      outcome: reply.outcome,
      error: reply.outcome === 'refused' ? reply.error : undefined,
      actor: command.actor.id,
      source: command.source,
    },
    'config write',
  );
  return reply;
}

export interface ConfigWriter extends Subscription {
  /**
   * Resolves once the writes in flight now have answered (writes that arrive later are not waited for), or
   * after `maxWaitMs` (a write stalled on the store holds nobody up for long).
   */
  answered(maxWaitMs: number): Promise<void>;
}

/** Answers write commands on the bus until stopped. */
export function startConfigWriter(opts: ConfigWriterOptions): ConfigWriter {
  const inFlight = new Set<Promise<ConfigWriteReply>>();
  const served = serveCommand(opts.bus, Commands.config.write, (command) => {
    const write = executeWrite(opts, command);
    inFlight.add(write);
    const done = (): void => void inFlight.delete(write);
    write.then(done, done);
    return write;
  });
  return {
    stop: () => served.stop(),
    answered: (maxWaitMs) => {
      if (inFlight.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxWaitMs);
        timer.unref();
        void Promise.allSettled([...inFlight]).then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
