import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import { agentId, EventRecord, Payloads, uuidv5 } from '../../../schema/index.js';
import { startLlmServer, type LlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { captureLogs } from '../toolservers/harness.js';
import { cleanTurn, readModelsFor, startCompany, type Harness } from './harness.js';
import { recordedDone } from './wakes.js';

const entry = (llm: LlmServer, extra: Record<string, unknown> = {}) => ({
  type: 'openai-compatible',
  model: 'local-1',
  base_url: llm.baseUrl,
  ...extra,
});
const skip: Step = { kind: 'text', text: '{"decision":"skip"}' };

/** The `/agents` row of a seat, folded from everything stored so far. */
async function agentRow(h: Harness, handle: string) {
  const models = readModelsFor(h);
  for (const e of await h.events()) models.applyEvent(e);
  for (const s of await h.spend()) models.applySpend(s);
  return models.agent(handle);
}

/** The `n`th stored `agent_turn_completed`, once it is stored. */
async function completedTurn(h: Harness, n: number) {
  let seen = 0;
  await h.waitFor((e) => e.type === 'agent_turn_completed' && ++seen >= n);
  return Payloads.AgentTurnCompleted.parse((await h.events('agent_turn_completed'))[n - 1]!.payload);
}

t.test(
  'a provider call past its timeout_seconds fails the phase and the turn; the seat reads stopped / provider until a phase completes',
  async (t) => {
    // The first call is never answered; the next one plans a skip.
    const llm = await startLlmServer({ wire: 'openai', script: [{ ...skip, hold: 'never' }, skip] });
    t.teardown(() => llm.close());
    const h = await startCompany(t, {
      script: [],
      llm,
      extra: { providers: { llm: { local: entry(llm, { timeout_seconds: 1 }) }, llm_order: ['local'] } },
    });
    await h.wake('cy', 'first');
    const turn = await completedTurn(h, 1);
    t.equal(turn.failed, true);
    t.same(turn.phases, ['plan']);
    t.match(turn.error, /every LLM provider in the chain failed \(local: timeout\)/);
    const unavailable = (await h.events('llm_unavailable')).map((e) =>
      Payloads.LlmUnavailable.parse(e.payload),
    );
    t.equal(unavailable.length, 1, 'the seat records it once (the registry does not repeat it)');
    t.match(unavailable[0], { provider: 'local', reason: 'timeout', turn_id: turn.turn_id, phase: 'plan' });
    const phase = Payloads.AgentPhaseCompleted.parse((await h.events('agent_phase_completed'))[0]!.payload);
    t.equal(phase.failed, true);
    t.match(phase.error, /timeout/);
    t.equal(h.runtime.host('cy')?.state(), 'idle', 'a provider failure is not a stop of the machine');
    await recordedDone(h, 'cy', turn.turn_id);

    t.match(await agentRow(h, 'cy'), {
      activity: 'stopped',
      stopped_reason: 'provider',
      last_turn: { turn_id: turn.turn_id, failed: true },
      last_error: { message: /local: timeout/, turn_id: turn.turn_id },
    });

    // A phase that completes clears the provider stop.
    await h.wake('cy', 'second');
    const next = await completedTurn(h, 2);
    t.equal(next.failed, false);
    t.match(await agentRow(h, 'cy'), {
      activity: 'idle',
      stopped_reason: null,
      last_turn: { failed: false },
    });
  },
);

t.test(
  'a 429 on the first key rotates to the second key and the turn completes; the first key cools for Retry-After',
  async (t) => {
    let answered = 0;
    const llm = await startLlmServer({
      wire: 'openai',
      script: (req) =>
        req.key === 'key-a'
          ? { kind: 'status', status: 429, headers: { 'retry-after': '120' } }
          : (cleanTurn[answered++] ?? skip),
    });
    t.teardown(() => llm.close());
    const h = await startCompany(t, {
      script: [],
      llm,
      extra: {
        providers: { llm: { local: entry(llm, { api_keys: ['key-a', 'key-b'] }) }, llm_order: ['local'] },
      },
    });
    const before = Date.now();
    await h.wake('ada');
    const turn = await completedTurn(h, 1);
    const after = Date.now();
    t.equal(turn.failed, false);
    t.same(turn.phases, ['plan', 'execute', 'review']);
    t.same(
      llm.requests.map((r) => r.key),
      ['key-a', 'key-b', 'key-b', 'key-b', 'key-b'],
      'the refused key is not asked again while it cools',
    );
    t.equal((await h.events('llm_unavailable')).length, 0);
    t.equal((await h.events('provider_fallback')).length, 0, 'a rotation inside one entry is not a fallback');

    const pool = h.providers.snapshot()['local']!;
    const [first, second] = pool.keys;
    t.match(first, { ref: 'api_keys[0]', reason: 'rate_limited', failures: 1, in_flight: 0 });
    const until = Date.parse(first!.cooling_until!);
    t.ok(until >= before + 120_000 && until <= after + 120_000, 'cooling for the 120 s Retry-After');
    t.match(second, { ref: 'api_keys[1]', cooling_until: null, reason: null, failures: 0 });
    t.notMatch(JSON.stringify(pool), /key-a|key-b/, 'the snapshot names keys, never their values');
  },
);

t.test(
  'a 500 fails over to the next provider in llm_order with provider_fallback, and the turn completes there',
  async (t) => {
    const primary = await startLlmServer({ wire: 'openai', script: () => ({ kind: 'status', status: 500 }) });
    const backup = await startLlmServer({ wire: 'openai', script: cleanTurn });
    t.teardown(() => Promise.all([primary.close(), backup.close()]));
    const h = await startCompany(t, {
      script: [],
      llm: primary,
      extra: {
        providers: {
          llm: { local: entry(primary), backup: entry(backup, { model: 'backup-1' }) },
          llm_order: ['local', 'backup'],
        },
      },
    });
    await h.wake('ada');
    const turn = await completedTurn(h, 1);
    t.equal(turn.failed, false);
    t.same(turn.phases, ['plan', 'execute', 'review']);
    t.equal(backup.requests.length, 4);
    t.equal(primary.requests.length, 4, 'a 500 does not cool the entry: each call tries it first');

    const fallbacks = await h.events('provider_fallback');
    t.equal(fallbacks.length, 4, 'one per model call');
    t.match(fallbacks[0], {
      agent_id: 'ada',
      failed: false,
      payload: {
        from: 'local',
        to: 'backup',
        reason: 'server_error',
        status: 500,
        chain: ['local', 'backup'],
      },
    });
    const phases = await h.events('agent_phase_completed');
    t.ok(
      fallbacks.every((f) => f.trace_id === phases[0]!.trace_id),
      'the fallback is on the turn trace',
    );
    t.equal((await h.events('llm_unavailable')).length, 0);
    const spend = await h.spend();
    t.ok(spend.length === 4 && spend.every((s) => s.provider === 'backup' && s.model === 'backup-1'));
    t.match(await agentRow(h, 'ada'), { activity: 'idle', stopped_reason: null, last_error: null });
  },
);

t.test(
  'with every key cooling and no other provider the turn waits for retry_at: llm_unavailable, no failure, no hot loop',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      script: () => ({ kind: 'status', status: 429, headers: { 'retry-after': '600' } }),
    });
    t.teardown(() => llm.close());
    const logs = captureLogs();
    const h = await startCompany(t, {
      script: [],
      llm,
      logs,
      extra: { providers: { llm: { local: entry(llm, { api_keys: ['key-a'] }) }, llm_order: ['local'] } },
    });
    // The first wake meets the 429 that starts the cooldown; the second finds the only key cooling.
    await h.wake('bob', 'first');
    await h.wake('bob', 'second');
    await logs.waitForNth((l) => l.msg === 'turn waits for its provider; resumes at retry_at', 2);
    t.equal(llm.requests.length, 1, 'a cooling key is not called: no request, no hot loop');
    const unavailable = (await h.events('llm_unavailable')).map((e) =>
      Payloads.LlmUnavailable.parse(e.payload),
    );
    const turnOf = (wake: string): string => uuidv5(agentId('Acme', 'bob'), wake);
    t.match(unavailable, [
      { provider: 'local', reason: 'keys_cooling', turn_id: turnOf('first'), attempts: [{ status: 429 }] },
      { provider: 'local', reason: 'keys_cooling', turn_id: turnOf('second') },
    ]);
    t.ok(unavailable.every((u) => u.retry_at !== null));
    t.equal((await h.events('agent_turn_completed')).length, 0, 'neither wake is dropped as failed');
    t.equal((await h.events('agent_phase_completed')).length, 0, 'no phase is recorded failed');
    t.equal(h.runtime.host('bob')?.state(), 'idle');
    t.match(await agentRow(h, 'bob'), { activity: 'stopped', stopped_reason: 'provider' });
  },
);

t.test(
  'a wake whose provider is unavailable until retry_at is kept and runs at retry_at, resumed, completed once',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      script: [{ kind: 'status', status: 429, headers: { 'retry-after': '1' } }, ...cleanTurn],
    });
    t.teardown(() => llm.close());
    const h = await startCompany(t, {
      script: [],
      llm,
      extra: { providers: { llm: { local: entry(llm, { api_keys: ['key-a'] }) }, llm_order: ['local'] } },
    });
    // When the second request (the turn asked again) arrives.
    const askedAgain = h.llm.waitForRequests(2).then(() => Date.now());
    await h.wake('ada', 'founder');
    const turn = await completedTurn(h, 1);
    t.equal(turn.turn_id, uuidv5(agentId('Acme', 'ada'), 'founder'), "the founder's wake ran");
    t.equal(turn.failed, false);
    t.same(turn.phases, ['plan', 'execute', 'review']);
    const [unavailable] = (await h.events('llm_unavailable')).map((e) =>
      Payloads.LlmUnavailable.parse(e.payload),
    );
    t.match(unavailable, { turn_id: turn.turn_id, reason: 'keys_cooling', phase: 'plan' });
    const ran = (await h.events('agent_turn_completed')).length;
    t.equal(ran, 1, 'completed once');
    t.equal(llm.requests.length, 5, 'the refused call, then the turn');
    t.ok(
      (await askedAgain) >= Date.parse(unavailable!.retry_at!),
      'the turn ran again no sooner than retry_at',
    );
    const started = (await h.events('agent_phase_started')).map((e) => e.payload['phase']);
    t.same(started, ['plan', 'execute', 'review'], 'the plan phase started once');
    const phases = (await h.events('agent_phase_completed')).map((e) =>
      Payloads.AgentPhaseCompleted.parse(e.payload),
    );
    t.same(
      phases.map((p) => [p.phase, p.failed]),
      [
        ['plan', false],
        ['execute', false],
        ['review', false],
      ],
    );
    t.equal(
      turn.total_tokens,
      phases.reduce((sum, p) => sum + p.total_tokens, 0),
    );
    t.equal((await h.spend()).length, 4);
    t.match(await agentRow(h, 'ada'), { activity: 'idle', stopped_reason: null });
  },
);

t.test(
  "a turn waiting for retry_at reads no running call, though its call's last frame was still held by the pacing",
  async (t) => {
    // Execute calls a tool, then its next model call meets a 429: that call's frame is held by the pacing.
    const llm = await startLlmServer({
      wire: 'openai',
      script: [
        cleanTurn[0]!,
        cleanTurn[1]!,
        { kind: 'status', status: 429, headers: { 'retry-after': '600' } },
      ],
    });
    t.teardown(() => llm.close());
    const logs = captureLogs();
    // Every stamp strictly after the one before: which record came first is never a tie.
    let last = 0;
    const now = (): Date => new Date((last = Math.max(Date.now(), last + 1)));
    const h = await startCompany(t, {
      script: [],
      llm,
      logs,
      now,
      progressEveryMs: 60_000,
      extra: { providers: { llm: { local: entry(llm, { api_keys: ['key-a'] }) }, llm_order: ['local'] } },
    });
    const frames: EventRecord[] = [];
    const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) =>
      frames.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)))),
    );
    t.teardown(() => sub.stop());
    await h.wake('ada');
    await logs.waitForNth((l) => l.msg === 'turn waits for its provider; resumes at retry_at', 1);
    const [unavailable] = await h.events('llm_unavailable');
    const late = frames.filter((f) => f.timestamp > unavailable!.timestamp);
    t.same(late, [], 'no frame of the waiting call is stamped after its llm_unavailable');
    // The node folds its own frames as they are made and the stored records when the tail brings them.
    const models = readModelsFor(h);
    for (const f of frames) models.applyEvent(f);
    for (const e of await h.events()) models.applyEvent(e);
    t.match(models.agent('ada'), {
      activity: 'stopped',
      stopped_reason: 'provider',
      turn: { phase: 'execute' },
      live_call: { phase: 'execute', in_progress: false, running_call: null },
    });
  },
);

t.test(
  'a 429 with Retry-After on every key records llm_unavailable with retry_at when the first key is usable again',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      script: () => ({ kind: 'status', status: 429, headers: { 'retry-after': '90' } }),
    });
    t.teardown(() => llm.close());
    // A clock a day ahead: retry_at follows the injected clock, not the wall clock.
    const now = (): Date => new Date(Date.now() + 86_400_000);
    const h = await startCompany(t, {
      script: [],
      llm,
      now,
      extra: {
        providers: { llm: { local: entry(llm, { api_keys: ['key-a', 'key-b'] }) }, llm_order: ['local'] },
      },
    });
    const before = now().getTime();
    await h.wake('bob', 'w');
    await h.waitFor((e) => e.type === 'llm_unavailable');
    const after = now().getTime();
    const turn = { turn_id: uuidv5(agentId('Acme', 'bob'), 'w') };
    t.same(
      llm.requests.map((r) => r.key),
      ['key-a', 'key-b'],
    );
    const [record] = await h.events('llm_unavailable');
    const unavailable = Payloads.LlmUnavailable.parse(record!.payload);
    t.match(unavailable, { provider: 'local', reason: 'keys_cooling', turn_id: turn.turn_id });
    const retryAt = unavailable.retry_at!;
    t.match(retryAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'an RFC 3339 UTC instant');
    const at = Date.parse(retryAt);
    t.ok(at >= before + 90_000 && at <= after + 90_000, 'now + Retry-After on the injected clock');
    t.equal(
      retryAt,
      h.providers
        .snapshot()
        ['local']!.keys.map((k) => k.cooling_until!)
        .sort()[0],
      'the earliest cooling key',
    );
    t.notMatch(JSON.stringify(record), /key-a|key-b/, 'keys are never in the event');
  },
);

t.test('with no provider configured llm_unavailable says retry_at null', async (t) => {
  const llm = await startLlmServer({ wire: 'openai', script: [] });
  t.teardown(() => llm.close());
  const h = await startCompany(t, { script: [], llm, extra: { providers: { llm: {}, llm_order: [] } } });
  await h.wake('bob');
  const turn = await completedTurn(h, 1);
  t.equal(turn.failed, true);
  t.match(turn.error, /no LLM provider is configured/);
  const unavailable = (await h.events('llm_unavailable')).map((e) =>
    Payloads.LlmUnavailable.parse(e.payload),
  );
  t.match(unavailable, [{ reason: 'not_configured', turn_id: turn.turn_id, retry_at: null }]);
  t.equal(llm.requests.length, 0);
});
