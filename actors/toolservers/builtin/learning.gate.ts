/**
 * Whether a seat learns (keeps personal memories, records episodes): the org `learning.enabled` and the
 * seat's `learning_enabled`, both on unless set to false, and both must be on. The org flag is read from
 * the first document applied and kept until restart (spec: learning config changes are stored for the
 * next restart only); the seat flag is a seat field and follows every apply.
 */
import { isDeepStrictEqual } from 'node:util';
import { walkCompany, type Company } from '../../../schema/index.js';

export interface LearningGate {
  enabled(seat: string): boolean;
  /**
   * Whether the seat's episodes are synthesised into skills (`learning.skill_synthesis.enabled`, off unless
   * true: it spends tokens), whether a skill may be rewritten (`learning.skill_refinement.enabled`) and
   * whether small episodes are also read together on a schedule (`scheduler_enabled`); null
   * when the seat does not learn or synthesis is off. Read from the first document applied, like the org flag.
   */
  synthesis(seat: string): { readonly refine: boolean; readonly scheduled: boolean } | null;
  /**
   * Whether the seat keeps profiles of the people who wake it (`learning.counterparty.enabled`, off unless
   * true: it spends tokens). Read from the first document applied, like the org flag.
   */
  counterparty(seat: string): boolean;
  /**
   * Whether the seat reflects on its episodes (`learning.reflect.enabled`, off unless true: it spends tokens)
   * and whether reflection rewrites their summaries (`summarize_episodes`); null when it does not reflect.
   * Read from the first document applied, like the org flag.
   */
  reflection(seat: string): { readonly summarize: boolean } | null;
  /**
   * Whether the seat's learned skills that served it well are promoted to every seat
   * (`learning.skill_promotion.enabled`, off unless true). Read from the first document applied.
   */
  promotion(seat: string): boolean;
  /**
   * The seat's episode lifecycle limits as the document gives them (`learning.episode_lifecycle`, fields
   * absent take their defaults); null when the seat does not learn. Read from the first document applied.
   */
  episodeLifecycle(seat: string): NonNullable<NonNullable<Company['learning']>['episode_lifecycle']> | null;
  /**
   * The most `memory_recall` calls one turn may make (`learning.personal_memory.max_refreshes_per_turn`);
   * null when unset: no cap. Every seat's, learning on or off, as recall reads either way. Read from the
   * first document applied, like the org flag.
   */
  recallsPerTurn(): number | null;
}

/**
 * The gate a config apply feeds: `apply` with each document a subsystem applies (a rollback's too), then
 * `settled` once the apply ended; `warn` hears, then, a change left for the restart.
 */
export function createLearningGate(warn?: (message: string) => void): LearningGate & {
  apply(document: Company | null): void;
  settled(): void;
} {
  let document: Company | null = null;
  let org: boolean | null = null;
  let learning: Company['learning'] | null = null;
  /** The settings last warned about (the running ones until a change is): said once per change. */
  let told: Company['learning'] | null = null;
  const enabled = (seat: string): boolean => {
    if (document === null || org !== true) return false;
    return walkCompany(document).seatByHandle.get(seat)?.seat.learning_enabled !== false;
  };
  return {
    apply(next) {
      document = next;
      if (document === null || org !== null) return;
      org = document.learning?.enabled !== false;
      learning = document.learning ?? null;
      told = learning;
    },
    settled() {
      if (document === null) return;
      const applied = document.learning ?? null;
      if (isDeepStrictEqual(applied, told)) return;
      told = applied;
      // Back to the running settings (a change undone): nothing waits for the restart.
      if (isDeepStrictEqual(applied, learning)) return;
      const wanted = applied?.enabled !== false;
      if (wanted !== org)
        warn?.(`learning.enabled changed to ${String(wanted)}; it takes effect at the next restart`);
      else warn?.('the learning settings changed; they take effect at the next restart');
    },
    enabled,
    synthesis(seat) {
      if (!enabled(seat) || learning?.skill_synthesis?.enabled !== true) return null;
      return {
        refine: learning.skill_refinement?.enabled === true,
        scheduled: learning.skill_synthesis.scheduler_enabled === true,
      };
    },
    counterparty(seat) {
      return enabled(seat) && learning?.counterparty?.enabled === true;
    },
    reflection(seat) {
      if (!enabled(seat) || learning?.reflect?.enabled !== true) return null;
      return { summarize: learning.reflect.summarize_episodes === true };
    },
    promotion(seat) {
      return enabled(seat) && learning?.skill_promotion?.enabled === true;
    },
    episodeLifecycle(seat) {
      return enabled(seat) ? (learning?.episode_lifecycle ?? {}) : null;
    },
    recallsPerTurn() {
      return learning?.personal_memory?.max_refreshes_per_turn ?? null;
    },
  };
}
