import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import {
  companyDoc,
  event,
  phaseCompleted,
  phaseStarted,
  spend,
  turnCompleted,
  agentModels,
} from '../fixtures/readmodels.js';

const models = agentModels;

t.test(
  'stop causes from events: provider clears on a completed phase, budget and needs on a phase start',
  async (t) => {
    const m = models({ placed: (h) => h !== 'dev-one' });
    t.equal(m.agent('dev-one')!.stopped_reason, 'unplaced');
    m.applyEvent(
      event(
        'llm_unavailable',
        'cto',
        {
          chain: ['main', 'backup'],
          attempts: [
            { provider: 'main', reason: 'keys_cooling', status: null },
            { provider: 'backup', reason: 'timeout', status: null },
          ],
        },
        '2026-11-23T10:00:00Z',
      ),
    );
    t.equal(m.agent('cto')!.stopped_reason, 'provider');
    t.match(m.agent('cto')!.last_error, { source: 'llm_unavailable', message: 'backup: timeout' });
    m.applyEvent(
      event(
        'agent_phase_completed',
        'cto',
        phaseCompleted('turn-3', 'plan', '2026-11-23T10:01:00Z'),
        '2026-11-23T10:01:00Z',
      ),
    );
    t.equal(m.agent('cto')!.stopped_reason, null);
    m.applyEvent(
      event(
        'budget_exhausted',
        'ceo',
        {
          // The org cap in force (companyDoc: 1000): a cap the document no longer has frees the seat.
          scope: 'org',
          cap: 1000,
          used: 1200,
          window_start: '2026-11-01T00:00:00Z',
          window_end: '2026-12-01T00:00:00Z',
        },
        '2026-11-23T10:02:00Z',
      ),
    );
    t.equal(m.agent('ceo')!.stopped_reason, 'budget');
    m.applyEvent(
      event(
        'agent_turn_completed',
        'ceo',
        turnCompleted('turn-4', '2026-11-23T10:03:00Z', { needs: { reason: 'asked Dana' } }),
        '2026-11-23T10:03:00Z',
      ),
    );
    t.equal(m.agent('ceo')!.activity, 'needs');
    m.applyEvent(event('agent_phase_started', 'ceo', phaseStarted('turn-5'), '2026-11-23T10:04:00Z'));
    t.equal(m.agent('ceo')!.activity, 'working');
    m.applyEvent(
      event(
        'agent_turn_completed',
        'ceo',
        turnCompleted('turn-5', '2026-11-23T10:05:00Z'),
        '2026-11-23T10:05:00Z',
      ),
    );
    t.equal(m.agent('ceo')!.activity, 'idle', 'the phase start cleared budget and needs');
    m.applyEvent(
      event(
        'turn.guard_breach',
        'ceo',
        { turn_id: 'turn-5', kind: 'repeated_call', detail: 'same call 5 times' },
        '2026-11-23T10:06:00Z',
      ),
    );
    t.match(m.agent('ceo')!.last_error, { kind: 'repeated_call', message: 'same call 5 times' });
    // The scheduler's breach: no turn id, no detail.
    m.applyEvent(
      event(
        'turn.guard_breach',
        'ceo',
        {
          kind: 'scheduled_timeout',
          turn_id: null,
          target_handle: 'ceo',
          scope_type: 'role',
          scope_id: 'CEO',
          schedule_name: 'daily',
          scheduled_at: '2026-11-23T09:00:00Z',
          fired_at: '2026-11-23T09:00:00Z',
          timeout_seconds: 600,
          deadline: '2026-11-23T09:10:00Z',
          at: '2026-11-23T10:07:00Z',
        },
        '2026-11-23T10:07:00Z',
      ),
    );
    t.match(m.agent('ceo')!.last_error, {
      kind: 'scheduled_timeout',
      turn_id: null,
      message: 'the scheduled turn outlived its 600 s timeout',
    });
  },
);

t.test('a seat over its own token cap reads stopped / budget from spend alone', async (t) => {
  const m = models();
  m.applySpend(spend({ handle: 'cto', total_tokens: 600, timestamp: '2026-11-23T09:00:00Z' }));
  const row = m.agent('cto')!;
  t.equal(row.stopped_reason, 'budget');
  t.equal(row.budget.refused, 'seat');
  t.equal(row.budget.seat.cap, 500);
  t.equal(row.budget.seat.used, 600);
  t.equal(row.tokens.total_tokens, 600);
});

t.test(
  'stop causes end with their cause: a cap raised or removed, the window over, the cooldown ended',
  async (t) => {
    const exhausted = (handle: string, scope: 'org' | 'seat', cap: number, used: number, windowEnd: string) =>
      event(
        'budget_exhausted',
        handle,
        { scope, cap, used, window_start: '2026-11-01T00:00:00Z', window_end: windowEnd },
        '2026-11-23T10:00:00Z',
      );
    const m = models();
    // cto's seat cap is 500: exhausted at 500 of 400 (a lower cap then), it is free now the cap is 500.
    m.applyEvent(exhausted('cto', 'seat', 400, 450, '2026-12-01T00:00:00Z'));
    t.equal(m.agent('cto')!.stopped_reason, null, 'the seat cap was raised past what was used');
    m.applyEvent({
      ...exhausted('cto', 'seat', 500, 520, '2026-12-01T00:00:00Z'),
      timestamp: '2026-11-23T10:01:00Z',
    });
    t.equal(m.agent('cto')!.stopped_reason, 'budget', 'the cap in force refuses');
    // The org cap (1000): in force while its window lasts.
    m.applyEvent(exhausted('ceo', 'org', 1000, 1000, '2026-12-01T00:00:00Z'));
    t.equal(m.agent('ceo')!.stopped_reason, 'budget');
    m.applyEvent({
      ...exhausted('ceo', 'org', 1000, 1000, '2026-11-01T00:00:00Z'),
      timestamp: '2026-11-23T10:01:00Z',
    });
    t.equal(m.agent('ceo')!.stopped_reason, null, 'a window already over stops nobody');
    // A seat with no cap of its own: a seat-scope stop from a cap since removed is over.
    m.applyEvent(exhausted('dev-one', 'seat', 10, 12, '2026-12-01T00:00:00Z'));
    t.equal(m.agent('dev-one')!.stopped_reason, null);

    const unavailable = (retryAt: string | null, at: string) =>
      event(
        'llm_unavailable',
        'cto',
        { chain: ['main'], attempts: [{ provider: 'main', reason: 'keys_cooling' }], retry_at: retryAt },
        at,
      );
    const p = models();
    p.applyEvent(unavailable('2026-11-23T12:30:00Z', '2026-11-23T11:00:00Z'));
    t.equal(p.agent('cto')!.stopped_reason, 'provider', 'cooling until 12:30 (the read is at 12:00)');
    p.applyEvent(unavailable('2026-11-23T11:30:00Z', '2026-11-23T11:01:00Z'));
    t.equal(p.agent('cto')!.stopped_reason, null, 'the cooldown ended at 11:30');
    p.applyEvent(unavailable(null, '2026-11-23T11:02:00Z'));
    t.equal(p.agent('cto')!.stopped_reason, 'provider', 'no retry instant: until a phase completes');
  },
);

t.test('a stop cause that ends by itself is pushed on the tick that passes it', async (t) => {
  let clock = Date.parse('2026-11-23T11:00:00Z');
  const m = new ReadModels({ now: () => clock });
  m.setCompany(companyDoc, 'rev-1');
  const frames: unknown[] = [];
  m.sections()
    .find((s) => s.name === 'agents')!
    .subscribe((data) => frames.push(data));
  m.applyEvent(
    event(
      'llm_unavailable',
      'cto',
      {
        chain: ['main'],
        attempts: [{ provider: 'main', reason: 'keys_cooling' }],
        retry_at: '2026-11-23T11:00:30Z',
      },
      '2026-11-23T11:00:00Z',
    ),
  );
  t.equal(m.agent('cto')!.stopped_reason, 'provider');
  frames.length = 0;
  m.tick();
  t.same(frames, [], 'nothing moved yet');
  clock += 31_000;
  m.tick();
  t.match(frames, [{ cto: { activity: 'idle', stopped_reason: null } }], 'the row is pushed idle');
});
