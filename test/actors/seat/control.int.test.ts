import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { seatKeys } from '../../../actors/index.js';
import {
  Buckets,
  ensureCatalogue,
  openBus,
  sendCommand,
  Subjects,
  TURNS_DONE_TTL_MS,
  type Bus,
} from '../../../bus/index.js';
import { agentId, Commands, EventRecord, Payloads, uuidv5, type SeatPause } from '../../../schema/index.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import { captureLogs } from '../toolservers/harness.js';
import { cleanTurn, company, readModelsFor, startCompany } from './harness.js';
import { recordedDone } from './wakes.js';

const encoder = new TextEncoder();

/** A clock whose every reading is strictly after the one before: no two records share an instant. */
function strictClock(): () => Date {
  let last = 0;
  return () => new Date((last = Math.max(Date.now(), last + 1)));
}

async function command(bus: Bus, verb: 'pause' | 'resume', body: Partial<SeatPause> & { seat: string }) {
  return sendCommand(
    bus,
    Commands.seats[verb],
    { by: 'ops', reason: 'test', stop_running: false, ...body },
    { timeoutMs: 5000 },
  );
}

t.test('a turn that crosses the org budget mid-turn stops at the next model call', async (t) => {
  const h = await startCompany(t, { script: cleanTurn, extra: { token_budget: 200 } });
  await h.wake('ada');
  const exhausted = await h.waitFor((e) => e.type === 'budget_exhausted');
  t.match(Payloads.BudgetExhausted.parse(exhausted.payload), { scope: 'org', cap: 200, used: 250 });
  const turn = Payloads.AgentTurnCompleted.parse(
    (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
  );
  t.equal(turn.failed, true);
  t.match(turn.error, /budget/);
  t.equal(h.llm.requests.length, 2, 'plan and the first execute call ran; the third call was refused');
  t.equal(h.runtime.host('ada')?.state(), 'stopped.budget');
  t.equal((await h.spend()).length, 2);
});

t.test('a seat budget refuses the turn before its first call', async (t) => {
  const h = await startCompany(t, { script: cleanTurn });
  // Bob's spend this month, stored by another node before this one checks his cap.
  const record = { id: 'spend-bob-1', timestamp: new Date().toISOString(), node: 'node-9', handle: 'bob', agent_id: 'agent-bob', role: 'Bob', turn_id: null, phase: 'execute', worker: null, provider: 'main', model: 'm', input_tokens: 500, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, total_tokens: 500 }; // prettier-ignore
  await h.bus.publish(Subjects.spend('llm'), encoder.encode(JSON.stringify(record)), { msgId: record.id });
  const doc = h.llm.baseUrl;
  await h.apply({
    ...(await import('./harness.js')).company(doc),
    units: [{ name: 'Eng', type: 'team', roles: [{ name: 'Bob', token_budget: 400 }] }],
  });
  await h.wake('bob');
  const exhausted = await h.waitFor((e) => e.type === 'budget_exhausted');
  t.match(exhausted.payload, { scope: 'seat', cap: 400, used: 500 });
  t.equal(h.llm.requests.length, 0);
});

t.test('pause without stop_running lets the turn finish and starts no new one until resumed', async (t) => {
  const script = [
    { ...cleanTurn[0]!, hold: 'plan' },
    ...cleanTurn.slice(1),
    { kind: 'text' as const, text: '{"decision":"skip"}' },
  ];
  const h = await startCompany(t, { script });
  await h.wake('ada', 'first');
  await h.llm.waitForRequests(1);
  const reply = await command(h.bus, 'pause', { seat: 'Ada', reason: 'look first' });
  t.match(reply, {
    ok: true,
    handle: 'ada',
    paused: { by: 'ops', reason: 'look first', stop_running: false },
  });
  await h.wake('ada', 'second');
  h.llm.release('plan');
  const first = Payloads.AgentTurnCompleted.parse(
    (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
  );
  t.equal(first.failed, false, 'the running turn finished');
  t.same(first.phases, ['plan', 'execute', 'review']);
  t.equal(h.runtime.host('ada')?.state(), 'stopped.paused');
  const paused = await h.waitFor((e) => e.type === 'agent_paused');
  t.same(Payloads.AgentPaused.parse(paused.payload).paused.stop_running, false);

  t.match(await command(h.bus, 'resume', { seat: 'ada' }), { ok: true, paused: null });
  const second = await h.waitFor(
    (e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] !== first.turn_id,
  );
  const all = await h.events();
  const resumedAt = all.findIndex((e) => e.type === 'agent_resumed');
  const secondStart = all.findIndex(
    (e) => e.type === 'agent_phase_started' && e.payload['turn_id'] === second.payload['turn_id'],
  );
  t.ok(resumedAt >= 0 && resumedAt < secondStart, 'the waiting wake ran only after the resume');
});

t.test(
  'pause with stop_running cuts the running turn at its next step; resume resumes it, completed once',
  async (t) => {
    const h = await startCompany(t, {
      script: [
        { ...cleanTurn[0]!, hold: 'never' },
        { kind: 'text' as const, text: '{"decision":"skip"}' },
      ],
    });
    await h.wake('cy', 'cut');
    await h.llm.waitForRequests(1);
    await command(h.bus, 'pause', { seat: 'cy', stop_running: true });
    await h.waitFor((e) => e.type === 'agent_paused');
    t.equal(h.runtime.host('cy')?.state(), 'stopped.paused');
    t.equal((await h.events('agent_turn_completed')).length, 0, 'the cut turn is not ended');
    t.equal((await h.events('agent_phase_completed')).length, 0, 'nor its phase');
    t.equal(h.llm.requests.length, 1);

    await command(h.bus, 'resume', { seat: 'cy' });
    const turn = Payloads.AgentTurnCompleted.parse(
      (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
    );
    t.equal(turn.turn_id, uuidv5(agentId('Acme', 'cy'), 'cut'), 'the cut wake ran after the resume');
    t.equal(turn.failed, false);
    t.same(turn.phases, ['plan']);
    t.equal(h.llm.requests.length, 2, 'the model call cut by the pause is the one asked again');
    t.equal((await h.events('agent_phase_started')).length, 1, 'the plan phase started once');
    t.equal((await h.events('agent_turn_completed')).length, 1);
  },
);

t.test(
  'a second pause answers the pause in force and records nothing, unless it adds stop_running to a running turn',
  async (t) => {
    const h = await startCompany(t, {
      script: [
        { ...cleanTurn[0]!, hold: 'never' },
        { kind: 'text' as const, text: '{"decision":"skip"}' },
      ],
    });
    await h.wake('cy', 'w');
    await h.llm.waitForRequests(1);
    const first = await command(h.bus, 'pause', { seat: 'cy', reason: 'look first' });
    t.match(first, { ok: true, changed: true, paused: { reason: 'look first', stop_running: false } });
    await h.waitFor((e) => e.type === 'agent_paused');

    const same = await command(h.bus, 'pause', { seat: 'cy', reason: 'other words' });
    t.match(same, { ok: true, changed: false, paused: { reason: 'look first', stop_running: false } });
    t.equal(h.runtime.host('cy')?.state(), 'working.plan', 'the turn still runs');

    const harder = await command(h.bus, 'pause', { seat: 'cy', reason: 'stop now', stop_running: true });
    t.match(harder, { ok: true, changed: true, paused: { reason: 'stop now', stop_running: true } });
    await h.waitFor(
      (e) => e.type === 'agent_paused' && Payloads.AgentPaused.parse(e.payload).paused.stop_running,
    );
    t.equal(h.runtime.host('cy')?.state(), 'stopped.paused', 'the escalation cut the turn');

    const idle = await command(h.bus, 'pause', { seat: 'cy', reason: 'third', stop_running: true });
    t.match(idle, { ok: true, changed: false, paused: { reason: 'stop now' } });
    const recorded = (await h.events('agent_paused')).map(
      (e) => Payloads.AgentPaused.parse(e.payload).paused.reason,
    );
    t.same(
      recorded,
      ['look first', 'stop now'],
      'one record per change, none for a pause that changed nothing',
    );

    t.match(await command(h.bus, 'resume', { seat: 'cy' }), { ok: true, changed: true, paused: null });
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    t.match(await command(h.bus, 'resume', { seat: 'cy' }), { ok: true, changed: false, paused: null });
    t.equal((await h.events('agent_resumed')).length, 1, 'a resume of a running seat records nothing');
  },
);

t.test('pausing a human or unknown seat is not_found', async (t) => {
  const h = await startCompany(t, { script: [] });
  t.match(await command(h.bus, 'pause', { seat: 'hu' }), { ok: false, error: 'not_found' });
  t.match(await command(h.bus, 'resume', { seat: 'nobody' }), { ok: false, error: 'not_found' });
});

t.test(
  'a seat removed from the company loses its pause: added back under the same handle, it is not paused',
  async (t) => {
    const h = await startCompany(t, { script: [] });
    t.match(await command(h.bus, 'pause', { seat: 'cy', reason: 'hold' }), { ok: true, changed: true });
    // Recorded (in svc_coord, then the event) after the answer.
    await h.waitFor((e) => e.type === 'agent_paused');
    t.equal(h.runtime.host('cy')?.state(), 'stopped.paused');
    const doc = company(h.llm.baseUrl);
    await h.apply({ ...doc, roles: (doc.roles ?? []).filter((r) => r.name !== 'Cy') });
    t.notOk(h.runtime.host('cy'), 'removed');
    t.equal(await h.catalogue.coord.get(seatKeys.paused('cy')), null, 'its pause record went with it');
    await h.apply(doc);
    t.equal(h.runtime.host('cy')?.state(), 'idle', 'the seat added back starts unpaused');
    t.equal(h.runtime.host('ada')?.state(), 'idle');
  },
);

t.test(
  'a pause recorded for a seat the document no longer has (removed while the node was down) is cleared at the next apply',
  async (t) => {
    const h = await startCompany(t, { script: [] });
    const stale = { by: 'ops', at: new Date().toISOString(), reason: 'old', stop_running: false };
    await h.catalogue.coord.put(seatKeys.paused('gone'), encoder.encode(JSON.stringify(stale)));
    await command(h.bus, 'pause', { seat: 'bob' });
    await h.waitFor((e) => e.type === 'agent_paused');
    await h.apply(company(h.llm.baseUrl));
    t.equal(await h.catalogue.coord.get(seatKeys.paused('gone')), null, 'the orphaned pause went');
    t.not(await h.catalogue.coord.get(seatKeys.paused('bob')), null, "a kept seat's pause stays");
    t.equal(h.runtime.host('bob')?.state(), 'stopped.paused');
  },
);

t.test('a restart mid-turn redelivers the wake and completes it once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seat-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await startCompany(t, { script: [{ ...cleanTurn[0]!, hold: 'never' }], storeDir: dir });
  await first.wake('ada', 'wake-1');
  await first.llm.waitForRequests(1);
  await first.stopSeats();
  await first.bus.close();

  const llm = await startLlmServer({ wire: 'openai', script: cleanTurn });
  t.teardown(() => llm.close());
  const second = await startCompany(t, { script: [], storeDir: dir, llm });
  const done = await second.waitFor((e) => e.type === 'agent_turn_completed');
  t.equal(Payloads.AgentTurnCompleted.parse(done.payload).failed, false);
  t.equal((await second.events('agent_turn_completed')).length, 1, 'completed once');
});

t.test(
  'a wake id that already completed is acknowledged without a second turn until its record expires',
  async (t) => {
    // The store's clock: moved to age the records, as days passing would.
    let offsetMs = 0;
    const skip = { kind: 'text' as const, text: '{"decision":"skip"}' };
    const h = await startCompany(t, {
      script: [...cleanTurn, skip, skip, skip],
      storeClock: () => Date.now() + offsetMs,
    });
    const turnOf = (wakeId: string): string => uuidv5(agentId('Acme', 'ada'), wakeId);
    // The inbox is taken in order: once this wake's turn is recorded done, every wake before it was
    // handled (and the store's clock may move without stamping that record with the new time).
    const runs = async (wakeId: string): Promise<void> => {
      await h.wake('ada', wakeId);
      await recordedDone(h, 'ada', turnOf(wakeId));
    };
    await runs('same');
    await h.wake('ada', 'same');
    await runs('other');
    t.equal((await h.events('agent_turn_completed')).length, 2);
    t.equal(h.llm.requests.length, 5, 'the repeated wake made no model call');

    // A minute before the end of its window the record still holds.
    offsetMs = TURNS_DONE_TTL_MS - 60_000;
    await h.wake('ada', 'same');
    await runs('third');
    t.equal((await h.events('agent_turn_completed')).length, 3);
    t.equal(h.llm.requests.length, 6, 'near its expiry the repeated wake still made no model call');

    // Past its window the record is gone, from reads and from the store.
    offsetMs = TURNS_DONE_TTL_MS + 60_000;
    const key = seatKeys.turnDone('ada', turnOf('same'));
    t.equal(await h.catalogue.turnsDone.get(key), null, 'an expired record reads as absent');
    t.notOk((await h.catalogue.turnsDone.keys()).includes(key));
    // The next write to the bucket drops the records past its age; 'third', written 2 min ago, stays.
    await runs('fourth');
    t.equal((await h.bus.streamInfo(`KV_${Buckets.TurnsDone}`)).messages, 2, 'third and fourth remain');
  },
);

t.test(
  'a turn recorded done in svc_coord before svc_turns_done existed is still not run again',
  async (t) => {
    const skip = { kind: 'text' as const, text: '{"decision":"skip"}' };
    const h = await startCompany(t, { script: [skip] });
    const turnId = uuidv5(agentId('Acme', 'ada'), 'before-upgrade');
    await h.catalogue.coord.put(
      seatKeys.legacyTurnDone('ada', turnId),
      encoder.encode(JSON.stringify({ turn_id: turnId, at: new Date().toISOString() })),
    );
    await h.wake('ada', 'before-upgrade');
    await h.wake('ada', 'after-upgrade');
    const done = await h.waitFor((e) => e.type === 'agent_turn_completed');
    t.not(Payloads.AgentTurnCompleted.parse(done.payload).turn_id, turnId);
    t.equal((await h.events('agent_turn_completed')).length, 1, 'only the new wake ran');
    t.equal(h.llm.requests.length, 1);
  },
);

t.test(
  'a seat opening on a store an earlier release wrote moves its completed-turn records to svc_turns_done',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-legacy-turns-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const turnId = uuidv5(agentId('Acme', 'ada'), 'before-upgrade');
    const earlier = await openBus({ type: 'memory', storeDir: dir });
    const { coord } = await ensureCatalogue(earlier);
    await coord.put(
      seatKeys.legacyTurnDone('ada', turnId),
      encoder.encode(JSON.stringify({ turn_id: turnId, at: new Date().toISOString() })),
    );
    await earlier.close();
    const skip = { kind: 'text' as const, text: '{"decision":"skip"}' };
    const h = await startCompany(t, { script: [skip], storeDir: dir });
    await h.wake('ada', 'before-upgrade');
    await h.wake('ada', 'after-upgrade');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    t.equal((await h.events('agent_turn_completed')).length, 1, 'only the new wake ran');
    t.equal(await h.catalogue.coord.get(seatKeys.legacyTurnDone('ada', turnId)), null, 'off svc_coord');
    const moved = await h.catalogue.turnsDone.get(seatKeys.turnDone('ada', turnId));
    t.match(JSON.parse(new TextDecoder().decode(moved?.value)), { turn_id: turnId }, 'into svc_turns_done');
  },
);

t.test(
  'a seat removed mid-turn is stopped while it still holds its lease: the cut is journaled',
  async (t) => {
    const logs = captureLogs();
    const script = [{ ...cleanTurn[0]!, hold: 'plan' }, ...cleanTurn.slice(1)];
    const h = await startCompany(t, { script, logs });
    await h.wake('cy', 'first');
    await h.llm.waitForRequests(1);
    const doc = company(h.llm.baseUrl);
    await h.apply({ ...doc, roles: [] });
    await logs.waitFor((l) => l.msg === 'seat decommissioned' && l['seat'] === 'cy');
    t.notOk(h.runtime.seats().includes('cy'));
    t.same(
      logs.lines.filter((l) => l.msg === 'turn cut not journaled'),
      [],
      'the cut was written before the lease went',
    );
  },
);

t.test(
  "a pause with stop_running reads no running call, though the cut call's last frame was still held by the pacing",
  async (t) => {
    // Execute calls a tool, then its next model call is never answered: that call's frame is held by the pacing.
    const h = await startCompany(t, {
      script: [cleanTurn[0]!, cleanTurn[1]!, { ...cleanTurn[2]!, hold: 'never' }],
      // Every stamp strictly after the one before: which record came first is never a tie.
      now: strictClock(),
      progressEveryMs: 60_000,
    });
    const frames: EventRecord[] = [];
    let heldSent: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (heldSent = resolve));
    const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) => {
      const frame = EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)));
      frames.push(frame);
      if (frame.payload['phase'] === 'execute' && frame.payload['round_num'] === 0) heldSent();
    });
    t.teardown(() => sub.stop());
    await h.wake('ada', 'cut');
    await h.llm.waitForRequests(3);
    await command(h.bus, 'pause', { seat: 'ada', stop_running: true });
    const paused = await h.waitFor((e) => e.type === 'agent_paused');
    // The held frame goes out when the view closes, before the record or (the defect) after it.
    await held;
    const late = frames.filter((f) => f.timestamp > paused.timestamp);
    t.same(late, [], 'no frame of the cut call is stamped after its agent_paused');
    // The node folds its own frames as they are made and the stored records when the tail brings them.
    const models = readModelsFor(h);
    for (const f of frames) models.applyEvent(f);
    for (const e of await h.events()) models.applyEvent(e);
    t.match(models.agent('ada'), {
      activity: 'stopped',
      stopped_reason: 'paused',
      turn: { phase: 'execute' },
      live_call: { phase: 'execute', in_progress: false, running_call: null },
    });
  },
);
