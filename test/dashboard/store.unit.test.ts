/** The dashboard's frame reducer: how each server frame changes what the rooms render. */
import t from 'tap';
import { applyFrame, FEED_KEEP, initialState, type LiveState } from '../../dashboard/src/live/store.js';
import type { EventRow, Frame } from '../../dashboard/src/live/types.js';

const frame = (kind: string, data: unknown): Frame => ({ kind, data, ts: '2026-01-01T00:00:00.000Z' });
const row = (id: string): EventRow => ({
  id,
  type: 'TaskCreated',
  source: 'test',
  timestamp: '2026-01-01T00:00:00.000Z',
  category: 'task',
  summary: id,
  actor: null,
  trace_id: null,
  failed: false,
});
const agent = (id: string, activity: string) => ({
  id,
  role: id,
  activity,
  stopped_reason: null,
  live_call: null,
});

function snapshot(): LiveState {
  return applyFrame(
    { ...initialState, problem: 'offline' },
    frame('snapshot', {
      health: { status: 'ok' },
      agents: { ada: agent('ada', 'idle'), bob: agent('bob', 'idle') },
      events: [row('e2'), row('e1')],
      org: { name: 'Acme' },
      tools: [],
    }),
  );
}

t.test(
  'a snapshot replaces everything, clears the problem and counts as a configuration change',
  async (t) => {
    const state = snapshot();
    t.equal(state.snapshot?.org?.name, 'Acme');
    t.equal(state.problem, null);
    t.equal(state.configTick, 1);
    const again = applyFrame(state, frame('snapshot', { agents: {}, events: [] }));
    t.same(again.snapshot?.agents, {}, 'a re-snapshot after a reconnect forgets what went away');
    t.equal(again.snapshot?.org, null);
  },
);

t.test('events prepend once each, newest first, and the kept feed is bounded', async (t) => {
  let state = applyFrame(snapshot(), frame('event', row('e3')));
  t.same(
    state.snapshot?.events.map((e) => e.id),
    ['e3', 'e2', 'e1'],
  );
  t.equal(state.eventTick, 2, 'one for the snapshot, one for the event');
  const same = applyFrame(state, frame('event', row('e3')));
  t.equal(same, state, 'a row seen already changes nothing');
  for (let i = 0; i < FEED_KEEP + 10; i++) state = applyFrame(state, frame('event', row(`n${i}`)));
  t.equal(state.snapshot?.events.length, FEED_KEEP);
  t.equal(state.snapshot?.events[0]?.id, `n${FEED_KEEP + 9}`);
});

t.test('agent overlays replace the rows they carry and leave the others', async (t) => {
  const state = applyFrame(snapshot(), frame('agents', { ada: agent('ada', 'working') }));
  t.equal(state.snapshot?.agents['ada']?.activity, 'working');
  t.equal(state.snapshot?.agents['bob']?.activity, 'idle');
  t.equal(state.configTick, 1, 'an overlay is not a configuration change');
});

t.test('a seats push drops the agent rows of seats no longer configured', async (t) => {
  const base = snapshot();
  // An apply that removes bob: the whole agents section (read as an overlay), then the seats section.
  const agents = applyFrame(base, frame('agents', { ada: agent('ada', 'idle') }));
  const seats = applyFrame(agents, frame('seats', [{ handle: 'ada', kind: 'agent' }, { handle: 'hal' }]));
  t.same(Object.keys(seats.snapshot?.agents ?? {}), ['ada'], "bob's row is gone");
  t.equal(seats.configTick, agents.configTick + 1, 'a seats push is a configuration change');
  const none = applyFrame(seats, frame('seats', []));
  t.same(none.snapshot?.agents, {}, 'no seat left, no row left');
});

t.test('section pushes replace their section; org, seats and tools count as configuration', async (t) => {
  const base = snapshot();
  const org = applyFrame(base, frame('org', { name: 'Acme 2' }));
  t.equal(org.snapshot?.org?.name, 'Acme 2');
  t.equal(org.configTick, base.configTick + 1);
  const budget = applyFrame(
    base,
    frame('budget', { cap: 10, used: 1, remaining: 9, ratio: 0.1, refused: false }),
  );
  t.equal(budget.snapshot?.budget?.used, 1);
  t.equal(budget.configTick, base.configTick, 'spend is not configuration');
  t.equal(applyFrame(base, frame('pong', null)), base, 'a pong changes nothing');
  t.equal(applyFrame(base, frame('something_new', {})), base, 'an unknown kind is ignored');
});

t.test('a snapshot moves every question: the epoch, the configuration and the event counters', async (t) => {
  const state = snapshot();
  const again = applyFrame(state, frame('snapshot', { agents: {}, events: [row('e9')] }));
  t.equal(again.epoch, state.epoch + 1, 'every question asks again after a reconnect');
  t.equal(again.eventTick, state.eventTick + 1, 'the feed asks for events missed while the link was down');
  t.equal(again.configTick, state.configTick + 1);
  const pushed = applyFrame(again, frame('events', [row('e10'), row('e9')]));
  t.equal(pushed.eventTick, again.eventTick + 1, 'a replaced event list moves the feed too');
  t.equal(pushed.epoch, again.epoch, 'only a snapshot moves the epoch');
});

t.test('a dropped token stays said across the snapshots that follow', async (t) => {
  const dropped: LiveState = { ...snapshot(), tokenDropped: true, problem: 'offline' };
  const next = applyFrame(dropped, frame('snapshot', { agents: {}, events: [] }));
  t.equal(next.problem, null, 'a snapshot clears the link problem');
  t.equal(next.tokenDropped, true, 'but not the dropped token');
});

t.test('frames that announce a fleet change bump the fleet tick; the others do not', async (t) => {
  const health = (over: Record<string, unknown> = {}) =>
    frame('health', { status: 'ok', posture: 'normal', applied_epoch: 1, nodes: 2, seats: ['ada'], ...over });
  const base = applyFrame(snapshot(), health());
  const moved = (f: Frame): boolean => applyFrame(base, f).fleetTick > base.fleetTick;
  t.notOk(moved(health()), 'the same pulse again');
  t.ok(
    moved(frame('fleet', null)),
    "the node's fleet push (a lease moved between peers, a duty failed over)",
  );
  t.equal(applyFrame(base, frame('fleet', null)).snapshot, base.snapshot, 'the push changes no section');
  t.ok(moved(health({ nodes: 3 })), 'a node joined');
  t.ok(moved(health({ nodes: 1 })), 'a node left');
  t.ok(moved(health({ seats: [] })), 'a seat left this node');
  t.ok(moved(health({ applied_epoch: 2 })), 'this node applied an epoch');
  t.ok(moved(health({ posture: 'shed' })), 'this node left rotation');
  t.notOk(moved(frame('agents', { ada: agent('ada', 'working') })), 'a seat at work');
  t.ok(
    moved(frame('agents', { ada: { ...agent('ada', 'stopped'), stopped_reason: 'unplaced' } })),
    'a seat no node holds',
  );
  t.ok(moved(frame('agents', { cy: agent('cy', 'idle') })), 'a seat placed for the first time');
  t.ok(moved(frame('event', { ...row('e9'), type: 'ConfigRevisionApplied' })), "a node's apply");
  t.ok(moved(frame('event', { ...row('e9'), type: 'alarm_raised' })), "a node's alarm");
  t.notOk(moved(frame('event', row('e9'))), 'a task event');
  t.notOk(moved(frame('event', { ...row('e1'), type: 'ConfigRevisionApplied' })), 'an event already held');
  const unplaced = applyFrame(
    base,
    frame('agents', { ada: { ...agent('ada', 'stopped'), stopped_reason: 'unplaced' } }),
  );
  t.ok(
    applyFrame(unplaced, frame('agents', { ada: agent('ada', 'idle') })).fleetTick > unplaced.fleetTick,
    'a seat placed again',
  );
});

t.test(
  'a resync snapshot replaces the feed and seat rows as on connect and moves each tick once, not the epoch',
  async (t) => {
    const state = applyFrame(snapshot(), frame('agents', { ada: agent('ada', 'working') }));
    const resync: Frame = {
      ...frame('snapshot', {
        health: { status: 'ok' },
        agents: { ada: agent('ada', 'idle'), cy: agent('cy', 'working') },
        events: [row('e7'), row('e2')],
        org: { name: 'Acme' },
        tools: [],
      }),
      dropped: 40,
    };
    const after = applyFrame(state, resync);
    t.same(
      after.snapshot?.events.map((e) => e.id),
      ['e7', 'e2'],
      'the feed is the snapshot, the gap filled',
    );
    t.same(Object.keys(after.snapshot?.agents ?? {}), ['ada', 'cy'], 'the seat rows are the snapshot');
    t.equal(after.snapshot?.agents['ada']?.activity, 'idle', 'a stale merged row is replaced');
    t.equal(
      after.epoch,
      state.epoch,
      'no question is asked again for the resync alone: every answer still comes',
    );
    t.equal(after.eventTick, state.eventTick + 1, 'questions following the events ask once');
    t.equal(after.configTick, state.configTick + 1, 'and those following the configuration');
    t.equal(after.fleetTick, state.fleetTick + 1, 'and the fleet room, whose marker may be lost');
  },
);
