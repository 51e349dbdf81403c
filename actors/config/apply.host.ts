/**
 * Applies each activated revision on this node (spec "Revision activation" and the apply order):
 * subsystems in order org, budgets, turn engine, providers, scalars, restart-required items; an
 * unchanged payload short-circuits; a failure rolls back what was applied, leaves the node on its
 * prior revision and is announced on `svc.config.revision_applied`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { publishEvent, type Bus, newEvent } from '../../bus/index.js';
import {
  ApplyOrder,
  Company,
  knownKeysAt,
  substituteDeep,
  withoutUnknownKeys,
  type Resolver,
  type ActivePointer,
  type RevisionApplied,
  type RevisionRecord,
  type Subsystem,
} from '../../schema/index.js';
import type { Announcement, NodeApplyOutcome, ApplyRequest, NodeEffect, NodeEvent } from '../node/index.js';
import { configSubjects } from './config.subjects.js';

/**
 * One subsystem's part of an apply, given the validated document (`previous` is null before the first
 * apply). `rollback` restores `previous` after a later subsystem failed.
 */
export interface SubsystemApplier {
  readonly name: Subsystem;
  apply(next: Company, previous: Company | null): Promise<void>;
  rollback?(previous: Company | null, failed: Company): Promise<void>;
  /** The same document activated under a new revision (a reload): only what names the revision follows. */
  adopt?(current: Company): void;
  /**
   * The apply ended with `current` in force: the document applied, or the prior one after a rollback. What
   * waits for a restart is said here, not mid-apply, where a later failure may still undo the change.
   */
  settled?(current: Company | null): void;
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
  /** The node machine: told what is active and how each apply ended; answers the effects to perform. */
  readonly node: { send(event: NodeEvent): readonly NodeEffect[] };
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Opens a stored payload (decrypts a sealed one); throws when this node cannot. */
  readonly openPayload?: (record: RevisionRecord) => unknown;
  /**
   * `${VAR}` resolution (secret store, then environment), as the subsystems resolve: a payload is
   * unchanged only when it also resolves to the same values, so a reload pushes changed secrets.
   */
  readonly resolve?: Resolver;
}

export interface Applier {
  /** Tells the node what is active and runs the applies it decides on; serialised. */
  reconcile(): Promise<void>;
  /**
   * The drain's step: starts no further apply and waits up to `ms` for the one in progress, which then ends
   * recorded (announced) as usual. Past `ms` it is cut: logged so (`config_apply_cut`), and whatever it ends in
   * later, while the node stops the subsystems under it, is neither logged as applied nor announced, so the
   * next start applies it again. Resolves false when it cut one.
   */
  stop(ms: number): Promise<boolean>;
}

type Outcome = Omit<Extract<NodeEvent, { type: 'node.apply.done' }>, 'type'>;

const encoder = new TextEncoder();

/** Applies a restore, then the active epoch after a failed restore: never more in one reconcile. */
const maxAppliesPerReconcile = 3;

export function createApplier(opts: ApplierOptions): Applier {
  const ordered = [...opts.subsystems].sort(
    (a, b) => ApplyOrder.indexOf(a.name) - ApplyOrder.indexOf(b.name),
  );
  /** What the subsystems hold now: the payload this process last applied (null before any). */
  let held: Company | null = null;
  /** `held` with its `${VAR}` references resolved when it was applied. */
  let heldResolved: unknown = null;
  /**
   * False after a failed apply: a rollback may have left a subsystem partly on the failed document (one
   * without a rollback, or one whose rollback failed), so `held` is then only what they were told to go
   * back to, and the same document activated again (an operator re-putting it) is applied, not skipped.
   */
  let heldExact = true;
  let chain = Promise.resolve();
  /** Set by `stop`: no apply starts. */
  let stopping = false;
  /** The apply in progress when `stop` gave up waiting: its outcome is no longer this node's to record. */
  let cut: ApplyRequest | null = null;
  let inProgress: ApplyRequest | null = null;

  async function announce(announcement: Announcement): Promise<void> {
    const event: RevisionApplied = {
      node: opts.nodeId,
      ...announcement,
      applied_subsystems: [...announcement.applied_subsystems],
      at: (opts.now?.() ?? new Date()).toISOString(),
    };
    await opts.bus.publish(configSubjects.revisionApplied, encoder.encode(JSON.stringify(event)));
    // The event history's record of it (spec: `ConfigRevisionApplied`), one per node and apply.
    const record = newEvent({
      type: 'ConfigRevisionApplied',
      category: 'system',
      source: `node/${opts.nodeId}`,
      summary: `revision ${event.revision_id} (epoch ${event.epoch}) ${event.status} on ${opts.nodeId}`,
      actor: opts.nodeId,
      failed: event.status === 'failed',
      payload: { ...event },
      now: new Date(event.at),
    });
    await publishEvent(opts.bus, record).catch((failure: unknown) =>
      opts.logger.error({ err: failure }, 'ConfigRevisionApplied not recorded'),
    );
  }

  /** The `apply` effect: the subsystems in order, rolled back on a failure. */
  async function perform(request: ApplyRequest): Promise<Outcome | null> {
    const { epoch, revision_id } = request;
    const outcome = (result: NodeApplyOutcome, subsystems: string[] = [], error?: string): Outcome => ({
      epoch,
      revision_id,
      outcome: result,
      // Several appliers share a subsystem's name (the org has more than one): each is named once.
      subsystems: [...new Set(subsystems)],
      ...(error !== undefined ? { error } : {}),
    });
    const log = opts.logger.child({ revision_id, epoch, ...(request.restore ? { restore: true } : {}) });
    if (!(await opts.source.untilStored(revision_id, 10_000))) {
      log.error('revision to apply is not readable; apply postponed');
      return outcome('postponed');
    }
    const stored = await opts.source.revision(revision_id).catch((error: unknown) => {
      log.error({ err: error }, 'revision to apply could not be read; apply postponed');
      return null;
    });
    if (!stored) return outcome('postponed');
    let opened: unknown;
    try {
      opened = opts.openPayload ? opts.openPayload(stored) : stored.payload;
    } catch (error) {
      log.error({ err: error }, 'revision cannot be opened on this node');
      return outcome('unopenable', [], error instanceof Error ? error.message : String(error));
    }
    // Stored revisions were validated when written; the shape is checked again so every subsystem
    // receives the typed document (a revision written by an older schema would fail here, not deep
    // inside an applier). Keys a newer build wrote are left out: this build runs what it knows.
    const parsed = Company.safeParse(withoutUnknownKeys(opened, knownKeysAt));
    if (!parsed.success) {
      log.error({ issues: parsed.error.issues.length }, 'revision is not a valid company document');
      return outcome('unopenable', [], 'the stored document does not match the company schema');
    }
    const payload = parsed.data;
    const resolved = opts.resolve ? substituteDeep(payload, opts.resolve) : payload;

    // An unchanged payload needs no work, only the new epoch. A reference that now resolves to another
    // value (a secret put since, then a reload) is a change: the subsystems resolve as they apply.
    if (
      held !== null &&
      heldExact &&
      isDeepStrictEqual(payload, held) &&
      isDeepStrictEqual(resolved, heldResolved)
    ) {
      for (const subsystem of ordered) subsystem.adopt?.(payload);
      log.info('config unchanged; epoch advanced');
      return outcome('unchanged');
    }

    const done: SubsystemApplier[] = [];
    for (const subsystem of ordered) {
      try {
        await subsystem.apply(payload, held);
        done.push(subsystem);
      } catch (error) {
        // A subsystem the drain stopped under a cut apply throws: that is the cut, not a failed apply.
        if (cut) return cutShort(log, 'failed');
        const message = error instanceof Error ? error.message : String(error);
        heldExact = false;
        // The failing subsystem is rolled back too: it may have done part of its work (stopped or
        // started some tool servers) before it threw.
        const rolledBack = await rollBack([...done, subsystem], payload, log);
        log.error(
          { subsystem: subsystem.name, err: error, rolled_back: rolledBack },
          held === null
            ? 'config apply failed; nothing was running, the node stays unconfigured'
            : rolledBack
              ? 'config apply failed; prior revision kept'
              : 'config apply failed; the rollback failed too',
        );
        if (rolledBack) settle(held);
        return outcome(
          rolledBack ? 'rolled_back' : 'rollback_failed',
          done.map((s) => s.name),
          `${subsystem.name}: ${message}`,
        );
      }
    }
    if (cut) return cutShort(log, 'ended');
    held = payload;
    heldResolved = resolved;
    heldExact = true;
    // A restore is announced nowhere, so it is said now; an apply once its record is written (reconcileOnce).
    if (request.restore) log.info({ subsystems: [...new Set(done.map((s) => s.name))] }, 'config restored');
    settle(payload);
    return outcome(
      'applied',
      done.map((s) => s.name),
    );
  }

  /** The end of an apply the drain cut: said at debug level, since `config_apply_cut` said it already. */
  function cutShort(log: Logger, how: 'ended' | 'failed'): null {
    heldExact = false;
    log.debug({ ended: how }, 'cut config apply ended during the shutdown; not recorded');
    return null;
  }

  function settle(current: Company | null): void {
    for (const subsystem of ordered) subsystem.settled?.(current);
  }

  /** Undo in reverse order; false when a rollback fails too (the machine then reads the node stuck). */
  async function rollBack(done: SubsystemApplier[], failed: Company, log: Logger): Promise<boolean> {
    for (const subsystem of [...done].reverse()) {
      try {
        await subsystem.rollback?.(held, failed);
      } catch (error) {
        log.error({ subsystem: subsystem.name, err: error }, 'config rollback failed');
        return false;
      }
    }
    return true;
  }

  async function reconcileOnce(): Promise<void> {
    for (let round = 0; round < maxAppliesPerReconcile; round += 1) {
      if (stopping) return;
      const pointer = opts.source.active();
      const active = pointer ? { epoch: pointer.epoch, revision_id: pointer.revision_id } : null;
      const apply = opts.node.send({ type: 'node.reconcile', active }).find((e) => e.type === 'apply');
      if (apply?.type !== 'apply') return;
      inProgress = apply.request;
      const outcome = await perform(apply.request).finally(() => (inProgress = null));
      // Cut by the drain: the machine keeps it in progress, and nothing is announced.
      if (outcome === null || cut) return;
      for (const effect of opts.node.send({ type: 'node.apply.done', ...outcome })) {
        if (effect.type !== 'announce') continue;
        try {
          await announce(effect.announcement);
        } catch (error) {
          // The subsystems run it, but the history does not hold it: never logged as plainly applied.
          opts.logger.error(
            { err: error, epoch: outcome.epoch, revision_id: outcome.revision_id, status: outcome.outcome },
            'config apply ended but svc.config.revision_applied was not written; the next start applies it again',
          );
          throw error;
        }
        if (outcome.outcome === 'applied')
          opts.logger.info(
            { revision_id: outcome.revision_id, epoch: outcome.epoch, subsystems: outcome.subsystems },
            'config applied',
          );
      }
      // A postponed apply waits for the next activation or tick.
      if (outcome.outcome === 'postponed') return;
    }
  }

  return {
    reconcile() {
      chain = chain.then(reconcileOnce).catch((error: unknown) => {
        opts.logger.error({ err: error }, 'config apply loop error');
      });
      return chain;
    },
    async stop(ms) {
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
      const settled = await Promise.race([chain.then(() => true), waited]);
      clearTimeout(timer);
      if (settled || inProgress === null) return true;
      cut = inProgress;
      opts.logger.warn(
        { event: 'config_apply_cut', epoch: cut.epoch, revision_id: cut.revision_id, waited_ms: ms },
        'config apply cut by the shutdown; not recorded, the next start applies it again',
      );
      return false;
    },
  };
}
