/** The drain's steps, each bounded, so one that hangs (a bus that does not answer) cannot hold a stop. */
import type { Logger } from 'pino';

/** One drain step's bound, and all the steps after the turns' together (a 60 s supervisor stop has room). */
export const drainStepMs = 5_000;
const drainBudgetMs = 20_000;
/** Even past the budget a step gets this long: a quick close still finishes. */
const drainStepFloorMs = 100;

/**
 * Runs the drain's steps, each bounded: one that throws or outlasts its bound (a bus that does not answer) is
 * logged and left behind, and `finish` then throws naming them, so the process exits non-zero.
 */
export function drainSteps(logger: Logger) {
  const left: string[] = [];
  let deadline: number | null = null;
  return {
    /** `ms` bounds the step alone; without it the step shares the budget, which starts with the first such. */
    async run(name: string, step: () => unknown, ms?: number): Promise<void> {
      deadline ??= ms === undefined ? Date.now() + drainBudgetMs : null;
      const bound =
        ms ?? Math.max(drainStepFloorMs, Math.min(drainStepMs, (deadline ?? Date.now()) - Date.now()));
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), bound)));
      try {
        const finished = await Promise.race([
          Promise.resolve()
            .then(step)
            .then(() => true),
          expired,
        ]);
        if (finished) return;
        left.push(name);
        logger.error(
          { event: 'drain_step_unfinished', step: name, waited_ms: bound },
          'drain step did not finish in time; left behind',
        );
      } catch (error) {
        left.push(name);
        logger.error({ err: error, event: 'drain_step_failed', step: name }, 'drain step failed');
      } finally {
        clearTimeout(timer);
      }
    },
    finish(): void {
      if (left.length > 0) throw new Error(`the drain left unfinished: ${left.join(', ')}`);
    },
  };
}
