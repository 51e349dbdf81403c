/**
 * Applies each activated revision on this node (spec "Revision activation" and the apply order):
 * subsystems in order org, budgets, turn engine, providers, scalars, restart-required items; an
 * unchanged payload short-circuits; a failure rolls back what was applied, leaves the node on its
 * prior revision and is announced on `svc.config.revision_applied`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { publishEvent, type Bus } from '../../bus/index.js';
import {
  ApplyOrder,
  newEvent,
  type ActivePointer,
  type RevisionApplied,
  type RevisionRecord,
  type Subsystem,
} from '../../schema/index.js';
import type { DivergedPosture, NodeEvent } from '../node/index.js';
import { configSubjects } from './config.subjects.js';

/** One subsystem's part of an apply. `rollback` restores `previous` after a later subsystem failed. */
export interface SubsystemApplier {
  readonly name: Subsystem;
  apply(next: unknown, previous: unknown): Promise<void>;
  rollback?(previous: unknown, failed: unknown): Promise<void>;
}

/** What the applier reads: the active pointer and stored revisions (the config read model). */
export interface RevisionSource {
  active(): ActivePointer | null;
  /** The record with its document, which may be read back from the stream (so it may take a moment). */
  revision(id: string): Promise<RevisionRecord | null>;
  /** Resolves true once the stored record of `id` is readable, false after the timeout. */
  untilStored(id: string, timeoutMs: number): Promise<boolean>;
}

export interface ApplierOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly source: RevisionSource;
  readonly subsystems: readonly SubsystemApplier[];
  /** The node machine's inbox. */
  readonly send: (event: NodeEvent) => void;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Opens a stored payload (decrypts a sealed one); throws when this node cannot. */
  readonly openPayload?: (record: RevisionRecord) => unknown;
}

export interface Applier {
  /** Applies the active revision if it is newer than the applied one; serialised. */
  reconcile(): Promise<void>;
  appliedEpoch(): number;
}

const encoder = new TextEncoder();

export function createApplier(opts: ApplierOptions): Applier {
  const ordered = [...opts.subsystems].sort(
    (a, b) => ApplyOrder.indexOf(a.name) - ApplyOrder.indexOf(b.name),
  );
  let applied: { epoch: number; payload: unknown } = { epoch: 0, payload: null };
  let chain = Promise.resolve();

  async function announce(
    pointer: ActivePointer,
    status: RevisionApplied['status'],
    subsystems: string[],
    error?: string,
  ) {
    const event: RevisionApplied = {
      node: opts.nodeId,
      revision_id: pointer.revision_id,
      epoch: pointer.epoch,
      status,
      applied_subsystems: subsystems,
      ...(error ? { error } : {}),
      at: (opts.now?.() ?? new Date()).toISOString(),
    };
    await opts.bus.publish(configSubjects.revisionApplied, encoder.encode(JSON.stringify(event)));
    // The event history's record of it (spec: `ConfigRevisionApplied`), one per node and apply.
    const record = newEvent({
      type: 'ConfigRevisionApplied',
      category: 'system',
      source: `node/${opts.nodeId}`,
      summary: `revision ${pointer.revision_id} (epoch ${pointer.epoch}) ${status} on ${opts.nodeId}`,
      actor: opts.nodeId,
      failed: status === 'failed',
      payload: { ...event },
      now: new Date(event.at),
    });
    await publishEvent(opts.bus, record).catch((failure: unknown) =>
      opts.logger.error({ err: failure }, 'ConfigRevisionApplied not recorded'),
    );
  }

  async function applyOnce(): Promise<void> {
    const pointer = opts.source.active();
    if (!pointer || pointer.epoch <= applied.epoch) return;
    if (!(await opts.source.untilStored(pointer.revision_id, 10_000))) {
      opts.logger.error(
        { revision_id: pointer.revision_id },
        'active revision is not readable; apply postponed',
      );
      return;
    }
    const log = opts.logger.child({ revision_id: pointer.revision_id, epoch: pointer.epoch });
    const stored = await opts.source.revision(pointer.revision_id).catch((error: unknown) => {
      log.error({ err: error }, 'active revision could not be read; apply postponed');
      return null;
    });
    if (!stored) return;
    let record: RevisionRecord;
    try {
      record = { ...stored, payload: opts.openPayload ? opts.openPayload(stored) : stored.payload };
    } catch (error) {
      opts.send({ type: 'node.apply.started', epoch: pointer.epoch });
      opts.send({ type: 'node.apply.failed', epoch: pointer.epoch, posture: 'stuck' });
      log.error({ err: error }, 'active revision cannot be opened on this node');
      await announce(pointer, 'failed', [], error instanceof Error ? error.message : String(error));
      applied = { epoch: pointer.epoch, payload: applied.payload };
      return;
    }

    // An unchanged payload needs no work, only the new epoch.
    if (applied.epoch > 0 && isDeepStrictEqual(record.payload, applied.payload)) {
      applied = { epoch: pointer.epoch, payload: applied.payload };
      opts.send({ type: 'node.apply.started', epoch: pointer.epoch });
      opts.send({ type: 'node.apply.succeeded', epoch: pointer.epoch });
      await announce(pointer, 'unchanged', []);
      log.info('config unchanged; epoch advanced');
      return;
    }

    opts.send({ type: 'node.apply.started', epoch: pointer.epoch });
    const done: SubsystemApplier[] = [];
    for (const subsystem of ordered) {
      try {
        await subsystem.apply(record.payload, applied.payload);
        done.push(subsystem);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const posture = await rollBack(done, record.payload, log);
        opts.send({ type: 'node.apply.failed', epoch: pointer.epoch, posture });
        log.error(
          { subsystem: subsystem.name, err: error, posture },
          'config apply failed; prior revision kept',
        );
        await announce(
          pointer,
          'failed',
          done.map((s) => s.name),
          `${subsystem.name}: ${message}`,
        );
        // The failed epoch counts as concluded: the node waits for the next activation.
        applied = { epoch: pointer.epoch, payload: applied.payload };
        return;
      }
    }
    applied = { epoch: pointer.epoch, payload: record.payload };
    opts.send({ type: 'node.apply.succeeded', epoch: pointer.epoch });
    await announce(
      pointer,
      'applied',
      done.map((s) => s.name),
    );
    log.info({ subsystems: done.map((s) => s.name) }, 'config applied');
  }

  /** Undo in reverse order; a node whose rollback also fails is stuck, else isolated on its prior revision. */
  async function rollBack(done: SubsystemApplier[], failed: unknown, log: Logger): Promise<DivergedPosture> {
    for (const subsystem of [...done].reverse()) {
      try {
        await subsystem.rollback?.(applied.payload, failed);
      } catch (error) {
        log.error({ subsystem: subsystem.name, err: error }, 'config rollback failed');
        return 'stuck';
      }
    }
    return 'isolated';
  }

  return {
    reconcile() {
      chain = chain.then(applyOnce).catch((error: unknown) => {
        opts.logger.error({ err: error }, 'config apply loop error');
      });
      return chain;
    },
    appliedEpoch: () => applied.epoch,
  };
}
