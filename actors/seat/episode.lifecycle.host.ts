/**
 * Keeps a seat's episode ledger (episode.lifecycle.ts) in the `svc_episodes` bucket, one key per seat (its
 * agent id), and records what the lifecycle decides: `episodes_compacted` and `episodes_pruned`, then the
 * ledger. Records come first: a stop in between plans the same again (ids derive from the episodes, so a
 * repeat stores nothing twice); a ledger written first could lose the records for good. Never throws: a
 * failure costs this pass, the next one (the next episode, the hourly look) does it again.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { KvConflictError, type Kv } from '../../bus/index.js';
import { readKvJson, writeKvJson } from '../kv-json.js';
import {
  emptyLedger,
  Ledger,
  planLifecycle,
  type LifecycleLimits,
  type LifecyclePlan,
} from './episode.lifecycle.js';

export interface LifecycleDeps {
  /** The `svc_episodes` bucket. */
  readonly episodes: Kv;
  readonly logger: Logger;
  readonly now: () => Date;
  /** How long the event history keeps a record (an episode older is gone from it). */
  readonly historyMs: number;
  /** An event about the seat (fenced by its lease), stored under the record's id. */
  publish(type: string, payload: Record<string, unknown>, id: string, trace?: string): Promise<void>;
}

/** The seat's holder is the only writer; a conflict (a holder handing over) reads the ledger again. */
const ATTEMPTS = 5;

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

async function record(deps: LifecycleDeps, plan: LifecyclePlan, trace: string | undefined): Promise<void> {
  for (const c of plan.compacted) {
    const payload = { episode: c.episode, members: c.members, cluster: c.cluster };
    await deps.publish('episodes_compacted', payload, `compacted-${c.episode.id}-${c.recorded_at}`, trace);
  }
  for (const p of plan.pruned)
    await deps.publish('episodes_pruned', { ids: p.ids, reason: p.reason }, `pruned-${digest(`${p.reason}\n${p.ids.join('\n')}`)}`, trace); // prettier-ignore
}

/**
 * Applies `change` to the seat's ledger (none: only the lifecycle's pass), runs the pass under `limits`,
 * records its decisions and writes the ledger back.
 */
export async function passLifecycle(
  deps: LifecycleDeps,
  input: {
    readonly agentId: string;
    readonly limits: LifecycleLimits;
    readonly change?: (ledger: Ledger) => Ledger;
    readonly trace?: string;
  },
): Promise<void> {
  const log = deps.logger.child({ worker: 'episode_lifecycle' });
  try {
    for (let attempt = 1; ; attempt++) {
      const current = await readKvJson(deps.episodes, input.agentId, Ledger, emptyLedger());
      const changed = input.change ? input.change(current.value) : current.value;
      const plan = planLifecycle(changed, input.limits, deps.now().getTime(), deps.historyMs);
      if (plan.compacted.length === 0 && plan.pruned.length === 0 && changed === current.value) return; // prettier-ignore
      await record(deps, plan, input.trace);
      try {
        await writeKvJson(deps.episodes, input.agentId, plan.ledger, current.revision);
      } catch (error) {
        if (error instanceof KvConflictError && attempt < ATTEMPTS) continue;
        throw error;
      }
      if (plan.compacted.length > 0 || plan.pruned.length > 0)
        log.info(
          {
            event: 'episode_lifecycle',
            compacted: plan.compacted.length,
            pruned: plan.pruned.reduce((n, p) => n + p.ids.length, 0),
            raw: plan.ledger.raw.length,
          },
          'episode_lifecycle',
        );
      return;
    }
  } catch (err) {
    log.warn({ err, event: 'episode_lifecycle_failed' }, 'episode_lifecycle_failed');
  }
}
