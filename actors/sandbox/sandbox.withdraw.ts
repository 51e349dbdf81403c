/**
 * A coding run acts for its seat only while the company document gives that seat a sandbox
 * (ops/sandboxes.md "When a seat loses its sandbox"). The node that watches a run learns of each document
 * it applied from its own announcement on `svc.config.revision_applied`, published once every subsystem
 * took the document (so a rolled-back apply ends nothing), and ends there each of its live runs whose seat
 * the document gives no sandbox, naming the revision. At start it judges its runs by the revision it
 * applied last (a seat removed while the node was down), then follows the announcements.
 */
import type { Logger } from 'pino';
import { Streams, Subjects, type Bus, type StoredMessage, type Subscription } from '../../bus/index.js';
import { RevisionApplied } from '../../schema/index.js';
import { isLive, type SandboxRecords } from './sandbox.records.js';

const decoder = new TextDecoder();

/** The revision `node` applied, when `message` announces one (another node's, a failure: null). */
function appliedHere(message: StoredMessage, node: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(message.data));
  } catch {
    return null;
  }
  const announced = RevisionApplied.safeParse(parsed);
  if (!announced.success || announced.data.node !== node || announced.data.status !== 'applied') return null;
  return announced.data.revision_id;
}

/**
 * Calls `applied` with the revision `node` applied last (if any), then with each it applies after, one
 * at a time and in order; `stop` ends the following and waits for a call under way.
 */
async function followApplies(
  bus: Bus,
  node: string,
  applied: (revisionId: string) => Promise<void>,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  let chain = Promise.resolve();
  const take = (revisionId: string): void => {
    chain = chain
      .then(() => applied(revisionId))
      .catch((err: unknown) => logger.warn({ err, revision_id: revisionId }, 'sandbox runs not judged'));
  };
  const info = await bus.streamInfo(Streams.Config);
  let last: string | null = null;
  for await (const m of bus.replay(Streams.Config, {
    subject: Subjects.configRevisionApplied,
    toSeq: info.lastSeq,
  }))
    last = appliedHere(m, node) ?? last;
  if (last !== null) take(last);
  const tail: Subscription = await bus.follow(
    Streams.Config,
    { fromSeq: info.lastSeq + 1, subject: Subjects.configRevisionApplied },
    (m) => {
      const revisionId = appliedHere(m, node);
      if (revisionId !== null) take(revisionId);
    },
  );
  return {
    async stop() {
      await tail.stop();
      await chain;
    },
  };
}

export interface WithdrawOptions {
  readonly bus: Bus;
  readonly node: string;
  readonly records: SandboxRecords;
  /** Whether the document this node applied gives `seat` a sandbox; null while it holds none. */
  readonly hasSandbox: (seat: string) => boolean | null;
  /** Ends a run as an operator cancel does (`by` the revision). */
  readonly cancel: (sandboxId: string, by: string, reason: string) => Promise<unknown>;
  readonly logger: Logger;
}

/** Ends this node's live runs of seats each applied document gives no sandbox; `stop` ends the following. */
export function startWithdrawals(opts: WithdrawOptions): { stop(): Promise<void> } {
  const { records, node, logger } = opts;
  const withdraw = async (revisionId: string): Promise<void> => {
    const gone = records
      .all()
      .filter((run) => run.node === node && isLive(run) && opts.hasSandbox(run.agent_handle) === false);
    // At once, not one by one: a cancel of a run still in its setup waits for the step to be cut.
    await Promise.all(
      gone.map((run) => {
        logger.info(
          { sandbox_id: run.sandbox_id, seat: run.agent_handle, revision_id: revisionId },
          'sandbox run withdrawn: its seat has no sandbox',
        );
        return opts.cancel(
          run.sandbox_id,
          `revision ${revisionId}`,
          `it gives seat ${run.agent_handle} no sandbox (the seat was removed or its sandbox taken away)`,
        );
      }),
    );
  };
  const following = followApplies(opts.bus, node, withdraw, logger).catch((err: unknown) => {
    logger.error({ err }, 'applied revisions not followed: runs of seats without a sandbox are not ended');
    return null;
  });
  return {
    async stop() {
      await (await following)?.stop();
    },
  };
}
