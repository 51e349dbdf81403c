/**
 * The alarm host on a real (in-process) bus: a condition raised and then ended is recorded once each as
 * `alarm_raised` / `alarm_cleared` on SVC_EVENTS, with payloads the schemas accept, and `/health`'s summary
 * follows (absent-worst at 0).
 */
import { pino } from 'pino';
import t from 'tap';
import { startAlarms, type AlarmFacts } from '../../actors/index.js';
import { ensureCatalogue, Streams, Subjects } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { EventRecord, Payloads, ToolServerState } from '../../schema/index.js';
import { calmFacts } from './fixtures/alarm-facts.js';

const quiet = calmFacts;

t.test('a raise and its clear are recorded once each, and the summary follows', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  let facts: AlarmFacts = quiet;
  const alarms = await startAlarms({
    bus,
    nodeId: 'node-a',
    logger: pino({ level: 'silent' }),
    facts: () => facts,
  });
  t.teardown(() => alarms.stop());
  t.same(alarms.summary(), { count: 0 }, 'evaluated at start');

  facts = {
    ...facts,
    budgetRefused: ['seat:ada'],
    toolServers: [{ server: 'docs', seat: null, state: ToolServerState.Backoff, restarts: 4 }],
  };
  alarms.evaluate();
  alarms.evaluate();
  t.same(alarms.summary(), { count: 2, worst: 'warning' });
  facts = {
    ...facts,
    toolServers: [{ server: 'docs', seat: null, state: ToolServerState.Started, restarts: 4 }],
  };
  alarms.evaluate();
  t.same(alarms.summary(), { count: 1, worst: 'warning' });

  const read = async (type: string): Promise<EventRecord[]> => {
    const out: EventRecord[] = [];
    for await (const m of bus.replay(Streams.Events, { subject: Subjects.event(type) }))
      out.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(m.data))));
    return out;
  };
  await alarms.stop();
  const raised = await read('alarm_raised');
  const cleared = await read('alarm_cleared');
  t.same(
    raised.map((e) => (e.payload as { alarm: string }).alarm).sort(),
    ['budget_exhausted:seat:ada', 'toolserver_crash_loop:docs'],
    'each raised once, however often evaluated',
  );
  t.same(
    cleared.map((e) => (e.payload as { alarm: string }).alarm),
    ['toolserver_crash_loop:docs'],
  );
  for (const e of raised) t.ok(Payloads.AlarmRaised.safeParse(e.payload).success, `${e.type} payload`);
  for (const e of cleared) t.ok(Payloads.AlarmCleared.safeParse(e.payload).success, `${e.type} payload`);
  t.match(raised[0], { category: 'system', source: 'node-a/alarms', failed: false });
});

t.test(
  'a restarted node takes up its standing alarms: none raised again, one that ended cleared once settled',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const start = (facts: () => AlarmFacts, at: string) =>
      startAlarms({
        bus,
        nodeId: 'node-a',
        logger: pino({ level: 'silent' }),
        facts,
        now: () => new Date(at),
      });
    const read = async (type: string): Promise<Array<Record<string, unknown>>> => {
      const out: Array<Record<string, unknown>> = [];
      for await (const m of bus.replay(Streams.Events, { subject: Subjects.event(type) }))
        out.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(m.data))).payload);
      return out;
    };

    const crashLoop = { server: 'docs', seat: null, state: ToolServerState.Backoff, restarts: 4 };
    const first = await start(
      () => ({ ...quiet, budgetRefused: ['org'], toolServers: [crashLoop] }),
      '2026-12-01T10:00:00.000Z',
    );
    t.same(first.summary(), { count: 2, worst: 'critical' });
    await first.stop();

    // Restarted: the budget is still spent; the tool server is not running yet and nothing is seeded yet.
    let facts: AlarmFacts = quiet;
    const second = await start(() => facts, '2026-12-01T11:00:00.000Z');
    t.teardown(() => second.stop());
    t.same(
      second.summary(),
      { count: 2, worst: 'critical' },
      'taken up at start, before the facts are whole',
    );
    facts = { ...quiet, budgetRefused: ['org'] };
    second.settle();
    t.same(second.summary(), { count: 1, worst: 'critical' });
    await second.stop();

    t.same(
      (await read('alarm_raised')).map((p) => p['alarm']).sort(),
      ['budget_exhausted:org', 'toolserver_crash_loop:docs'],
      'each raised once across the restart',
    );
    t.match(await read('alarm_cleared'), [
      {
        alarm: 'toolserver_crash_loop:docs',
        raised_at: '2026-12-01T10:00:00.000Z',
        cleared_at: '2026-12-01T11:00:00.000Z',
      },
    ]);

    const third = await start(() => quiet, '2026-12-01T12:00:00.000Z');
    t.teardown(() => third.stop());
    t.same(third.summary(), { count: 1, worst: 'critical' }, 'what stands is kept for the next start');
  },
);
