/**
 * The learning calls' one model call: the budget is checked first, and a refusal makes no call and records
 * no spend, logged with the worker and the cap that refused.
 */
import pino from 'pino';
import t from 'tap';
import type { Budget } from '../../../actors/seat/budget.js';
import { auxiliaryCall, type LearningDeps } from '../../../actors/seat/learning.call.js';
import type { SeatProfile } from '../../../actors/seat/seat.profile.js';
import type { Bus } from '../../../bus/index.js';

t.test('a refused budget makes no call and records no spend', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }); // prettier-ignore
  let called = 0;
  const budget = {
    check: () => Promise.resolve({ scope: 'seat', cap: 100, used: 120, window_start: '', window_end: '' }),
    count: () => undefined,
    stop: () => Promise.resolve(),
  } as unknown as Budget;
  const deps: LearningDeps = {
    bus: { publish: () => Promise.reject(new Error('no spend may be recorded')) } as unknown as Bus,
    node: 'node-0',
    llm: {
      resolve: () => ['local'],
      call: () => {
        called += 1;
        throw new Error('no call may be made');
      },
    },
    budget,
    logger: log,
    now: () => new Date(),
    publish: () => Promise.resolve(),
  };
  const answer = await auxiliaryCall(
    deps,
    {
      worker: 'reflector',
      seat: { handle: 'ada', agent_id: 'a-1', name: 'Ada' } as SeatProfile,
      request: { system: '', messages: [], max_tokens: 10, temperature: 0 },
      trace_id: 'trace',
      spendId: 'spend-1',
      turn_id: null,
      caps: { org: 0, seat: 100 },
    },
    log,
  );
  t.equal(answer, null);
  t.equal(called, 0);
  t.match(lines, [{ event: 'auxiliary_call_skipped', worker: 'reflector', reason: 'seat_budget' }]);
});
