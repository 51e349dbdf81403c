import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { seatKeys } from '../../../actors/index.js';
import { Subjects } from '../../../bus/index.js';
import { EventRecord, Payloads, ScheduledTimeoutBreach } from '../../../schema/index.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import { cleanTurn, readModelsFor, startCompany } from './harness.js';
import { recordedDone, scheduledWake } from './wakes.js';
import { recordingTracer } from '../../harness/recording-tracer.js';

t.test(
  'a scheduled turn that outlives its timeout_seconds is cut: guard breach, failed turn, wake acknowledged',
  async (t) => {
    // The plan call never answers: only the deadline can end the turn.
    const script = [
      { ...cleanTurn[0]!, hold: 'never' },
      { kind: 'text' as const, text: '{"decision":"skip"}' },
    ];
    const h = await startCompany(t, { script });
    const firedAt = new Date();
    await scheduledWake(h, 'ada', { firedAt, timeoutSeconds: 1 });

    const breachEvent = await h.waitFor((e) => e.type === 'turn.guard_breach');
    t.equal(breachEvent.agent_id, 'ada');
    t.equal(breachEvent.failed, true);
    const breach = ScheduledTimeoutBreach.parse(breachEvent.payload);
    t.match(breach, {
      kind: 'scheduled_timeout',
      target_handle: 'ada',
      scope_type: 'role',
      scope_id: 'ada',
      schedule_name: 'nightly',
      fired_at: firedAt.toISOString(),
      timeout_seconds: 1,
      deadline: new Date(firedAt.getTime() + 1000).toISOString(),
    });
    t.ok(Date.parse(breach.at) >= Date.parse(breach.deadline), 'noticed once the deadline was reached');

    const turn = Payloads.AgentTurnCompleted.parse(
      (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
    );
    t.equal(turn.turn_id, breach.turn_id);
    const completion = await h.waitFor((e) => e.type === 'agent_turn_completed');
    t.equal(breachEvent.trace_id, completion.trace_id, "the breach is on the wake's trace");
    t.equal(breachEvent.id, `breach-${turn.turn_id}-scheduled_timeout`, 'one breach of a kind per turn');
    t.equal(turn.failed, true);
    t.match(turn.error, /^scheduled_timeout: schedule nightly allows 1 s/);
    t.equal(turn.trigger, 'schedule');
    // The running phase was aborted and says why.
    const phase = Payloads.AgentPhaseCompleted.parse(
      (await h.waitFor((e) => e.type === 'agent_phase_completed' && e.failed)).payload,
    );
    t.equal(phase.turn_id, turn.turn_id);
    t.match(phase.error, /^scheduled_timeout: /);

    // Acknowledged, not retried: the turn is recorded done and the seat takes its next wake.
    await recordedDone(h, 'ada', turn.turn_id);
    await h.wake('ada', 'next');
    const next = await h.waitFor(
      (e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] !== turn.turn_id,
    );
    t.equal(next.payload['failed'], false);
    t.equal(
      (await h.events('agent_turn_completed')).filter((e) => e.payload['turn_id'] === turn.turn_id).length,
      1,
      'the timed-out turn completed once',
    );
    t.equal(h.llm.requests.length, 2, 'the cut plan call and the next turn, nothing retried');

    const models = readModelsFor(h);
    for (const e of (await h.events()).filter((e) => e.payload['turn_id'] === turn.turn_id))
      models.applyEvent(e);
    t.match(models.agent('ada'), {
      activity: 'idle',
      stopped_reason: null,
      last_turn: { turn_id: turn.turn_id, failed: true },
      last_error: { message: /^scheduled_timeout: /, turn_id: turn.turn_id },
    });
  },
);

t.test(
  "a scheduled turn cut at its deadline sends its call's last frame, held by the pacing, before the breach and the records that end it",
  async (t) => {
    // Execute calls a tool, then its next model call never answers: that call's frame is held by the pacing.
    let last = 0;
    const h = await startCompany(t, {
      script: [cleanTurn[0]!, cleanTurn[1]!, { ...cleanTurn[2]!, hold: 'never' }],
      // Every stamp strictly after the one before: which record came first is never a tie.
      now: () => new Date((last = Math.max(Date.now(), last + 1))),
      progressEveryMs: 60_000,
    });
    const frames: EventRecord[] = [];
    const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) =>
      frames.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)))),
    );
    t.teardown(() => sub.stop());
    await scheduledWake(h, 'ada', { firedAt: new Date(), timeoutSeconds: 2 });
    await h.llm.waitForRequests(3);
    // The phase's record goes out after its view is closed, so the held frame is out by then.
    await h.waitFor((e) => e.type === 'agent_phase_completed' && e.failed);
    const turn = await h.waitFor((e) => e.type === 'agent_turn_completed');
    const [breach] = await h.events('turn.guard_breach');
    t.ok(
      frames.some((f) => f.payload['phase'] === 'execute' && f.payload['round_num'] === 0),
      'the frame held by the pacing was sent',
    );
    const first = [breach!, turn].map((e) => e.timestamp).sort()[0]!;
    t.same(
      frames.filter((f) => f.timestamp >= first),
      [],
      'no frame of the cut call is stamped at or after the breach or the turn completion',
    );
    // Another node folds the stored records, then the frames the live subject brought late.
    const models = readModelsFor(h);
    for (const e of await h.events()) models.applyEvent(e);
    for (const f of frames) models.applyEvent(f);
    t.match(models.agent('ada'), {
      activity: 'idle',
      turn: null,
      last_turn: { turn_id: turn.payload['turn_id'], failed: true },
      live_call: { phase: 'execute', in_progress: false, failed: true },
    });
  },
);

t.test('a scheduled wake taken after its deadline fails at once without a model call', async (t) => {
  const h = await startCompany(t, { script: [] });
  // Fired two minutes ago with a one-minute timeout: it waited in the inbox past its deadline.
  await scheduledWake(h, 'bob', { firedAt: new Date(Date.now() - 120_000), timeoutSeconds: 60 });
  const turn = Payloads.AgentTurnCompleted.parse(
    (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
  );
  t.equal(turn.failed, true);
  t.same(turn.phases, [], 'no phase ran');
  t.match(turn.error, /^scheduled_timeout: .*passed before the turn could start/);
  const breachEvent = await h.waitFor((e) => e.type === 'turn.guard_breach');
  const completion = await h.waitFor((e) => e.type === 'agent_turn_completed');
  t.ok(breachEvent.trace_id, 'a trace');
  t.equal(breachEvent.trace_id, completion.trace_id, "the late wake's own trace");
  const breach = ScheduledTimeoutBreach.parse(breachEvent.payload);
  t.match(breach, {
    kind: 'scheduled_timeout',
    turn_id: turn.turn_id,
    target_handle: 'bob',
    timeout_seconds: 60,
  });
  t.equal(h.llm.requests.length, 0);
  t.equal((await h.events('agent_phase_started')).length, 0);
  await recordedDone(h, 'bob', turn.turn_id);
  t.equal(h.runtime.host('bob')?.state(), 'idle');
});

t.test('a scheduled wake that waited behind a long turn past its deadline fails when taken', async (t) => {
  // The seats' clock is moved past the deadline while the first turn holds; no test time passes.
  let offset = 0;
  const now = (): Date => new Date(Date.now() + offset);
  const h = await startCompany(t, {
    script: [{ ...cleanTurn[0]!, hold: 'long' }, ...cleanTurn.slice(1)],
    now,
  });
  await h.wake('ada', 'long');
  await h.llm.waitForRequests(1);
  await scheduledWake(h, 'ada', { firedAt: now(), timeoutSeconds: 60 });
  offset = 120_000;
  h.llm.release('long');

  let seen = 0;
  await h.waitFor((e) => e.type === 'agent_turn_completed' && ++seen === 2);
  const [long, scheduled] = (await h.events('agent_turn_completed')).map((e) =>
    Payloads.AgentTurnCompleted.parse(e.payload),
  );
  t.equal(long!.failed, false, 'the long turn was not bounded by the waiting wake');
  t.match(scheduled, {
    failed: true,
    phases: [],
    trigger: 'schedule',
    error: /passed before the turn could start/,
  });
  t.equal(h.llm.requests.length, 4, 'the late wake made no model call');
  t.match(
    (await h.events('turn.guard_breach')).map((e) => e.payload),
    [{ kind: 'scheduled_timeout', turn_id: scheduled!.turn_id, timeout_seconds: 60 }],
  );
});

t.test(
  'a scheduled turn cut by a restart is not lost: after its deadline it fails at once, once',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-seat-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const first = await startCompany(t, { script: [{ ...cleanTurn[0]!, hold: 'never' }], storeDir: dir });
    await scheduledWake(first, 'ada', { firedAt: new Date(), timeoutSeconds: 60 });
    await first.llm.waitForRequests(1);
    await first.stopSeats();
    await first.bus.close();

    // The node comes back two minutes later (the seats' clock says so): the wake is redelivered, expired.
    const llm = await startLlmServer({ wire: 'openai', script: cleanTurn });
    t.teardown(() => llm.close());
    const second = await startCompany(t, {
      script: [],
      storeDir: dir,
      llm,
      now: () => new Date(Date.now() + 120_000),
    });
    const turn = Payloads.AgentTurnCompleted.parse(
      (await second.waitFor((e) => e.type === 'agent_turn_completed')).payload,
    );
    t.match(turn, { failed: true, phases: [], error: /^scheduled_timeout: / });
    t.equal(llm.requests.length, 0);
    await recordedDone(second, 'ada', turn.turn_id);
    t.equal((await second.events('agent_turn_completed')).length, 1, 'completed once');
    t.equal((await second.events('turn.guard_breach')).length, 1);
  },
);

t.test(
  'a scheduled turn cut mid-phase and taken again past its deadline closes the cut phase, failed, once',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-seat-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    // Plan completes; execute calls a tool, then its next model call is in flight when the seats stop.
    const first = await startCompany(t, {
      script: [cleanTurn[0]!, cleanTurn[1]!, { ...cleanTurn[2]!, hold: 'never' }],
      storeDir: dir,
    });
    const firedAt = new Date();
    const wakeId = await scheduledWake(first, 'ada', { firedAt, timeoutSeconds: 60 });
    await first.llm.waitForRequests(3);
    await first.stopSeats();
    await first.bus.close();

    const spans = recordingTracer();
    const second = await startCompany(t, {
      script: [],
      storeDir: dir,
      now: () => new Date(Date.now() + 120_000),
      tracer: spans.tracer,
    });
    const turn = Payloads.AgentTurnCompleted.parse(
      (await second.waitFor((e) => e.type === 'agent_turn_completed')).payload,
    );
    t.match(turn, { failed: true, error: /passed while the turn was cut, before it could resume$/ });
    await recordedDone(second, 'ada', turn.turn_id);
    const ofTurn = async (type: string): Promise<EventRecord[]> =>
      (await second.events(type)).filter((e) => e.payload['turn_id'] === turn.turn_id);
    t.same(
      (await ofTurn('agent_phase_started')).map((e) => e.payload['phase']),
      ['plan', 'execute'],
    );
    const closed = await ofTurn('agent_phase_completed');
    t.same(
      closed.map((e) => e.payload['phase']),
      ['plan', 'execute'],
      'every phase it started is closed',
    );
    const cut = closed[1]!;
    t.equal(cut.id, `phase-${turn.turn_id}-execute.0`, 'under the id the phase itself would use');
    t.equal(cut.failed, true);
    t.equal(cut.trace_id, (await ofTurn('agent_turn_completed'))[0]!.trace_id, "on the turn's trace");
    const record = Payloads.AgentPhaseCompleted.parse(cut.payload);
    t.equal(record.error, turn.error, "the turn's error");
    t.same(
      record.rounds.map((r) => r.round),
      [-1],
      'the round the journal holds, none asked again',
    );
    t.equal(record.total_tokens, 120 + 10);
    t.match(record.tool_executions, [{ name: 'files_echo', call_id: 'c1' }]);
    const plan = Payloads.AgentPhaseCompleted.parse(closed[0]!.payload);
    t.same(turn.phases, ['plan', 'execute'], 'the turn names the phases its first run started');
    t.equal(turn.total_tokens, plan.total_tokens + 130, 'and counts their tokens');
    t.same(
      spans.ended('turn').map((a) => a['svc.tokens']),
      [turn.total_tokens],
      "the turn's span records the tokens its completion counts",
    );
    t.same(
      record.timeline.map((m) => m.kind),
      ['started', 'tool', 'cut', 'failed'],
      'the timeline says the phase was cut, then failed',
    );

    // The same wake delivered again (its done mark lost): the turn is resumed twice, the phase closed once.
    await second.catalogue.turnsDone.delete(seatKeys.turnDone('ada', turn.turn_id));
    const again = recordedDone(second, 'ada', turn.turn_id);
    await scheduledWake(second, 'ada', { firedAt, timeoutSeconds: 60, id: wakeId });
    await again;
    t.equal((await ofTurn('agent_phase_completed')).length, 2, 'no phase closed twice');
    t.equal((await ofTurn('agent_turn_completed')).length, 1);
  },
);

t.test('a scheduled turn that finishes within a long timeout is not breached', async (t) => {
  // Thirty days: longer than one timer can wait, so the wait is chained rather than firing at once.
  const h = await startCompany(t, { script: cleanTurn });
  await scheduledWake(h, 'ada', { firedAt: new Date(), timeoutSeconds: 30 * 24 * 3600 });
  const turn = Payloads.AgentTurnCompleted.parse(
    (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
  );
  t.equal(turn.failed, false);
  t.same(turn.phases, ['plan', 'execute', 'review']);
  t.equal((await h.events('turn.guard_breach')).length, 0);
});
