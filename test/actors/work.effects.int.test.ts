/**
 * The work tracker's effects follow the log (ops/work-tracker.md "Events and wakes"): a record appended by
 * a writer that died before delivering anything still sets off its task events and its agent seat's wake
 * once a node's work host runs, on both bus engines; a delivery that fails halfway is delivered again
 * without storing anything twice, and what a record sets off is the item as it stood at that record, not
 * as later records left it.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { RateWindow, startWorkHost, type WorkContext } from '../../actors/index.js';
import { ensureCatalogue, openBus, Streams, Subjects, type Bus } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { followWork } from '../../projections/index.js';
import { defaultFields, projectsOf, seatKindsOf, type WorkRecord } from '../../schema/index.js';
import { company } from '../http/fixtures/work-harness.js';
import { startNatsServer } from '../harness/nats-server.js';
import { until as poll } from '../harness/until.js';

/** The effects land on the engine's own ticks: ask often. */
const until = <T>(read: () => Promise<T>, test: (value: T) => boolean): Promise<T> =>
  poll(read, test, { timeoutMs: 15_000, everyMs: 20 });

type Json = Record<string, unknown>;
const logger = pino({ level: 'silent' });
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const context: WorkContext = { projects: projectsOf(company), seats: seatKindsOf(company) };
const itemId = '5f0e8d52-4a8e-4c53-9d0a-2b7f7d4c1a01';

/** The bus as the work host sees it, whose first publish on `subject` fails (a broker hiccup). */
function failingOnce(bus: Bus, subject: string): { bus: Bus; attempts: () => number } {
  let attempts = 0;
  const proxy = new Proxy(bus, {
    get(target, prop) {
      if (prop === 'publish')
        return async (...args: Parameters<Bus['publish']>) => {
          if (args[0] === subject && attempts++ === 0) throw new Error('broker hiccup');
          return target.publish(...args);
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { bus: proxy, attempts: () => attempts };
}

/** Every message of `stream`, one by one (the inbox is a work queue: no ordered reader on it). */
async function stored(bus: Bus, stream: string): Promise<Array<{ subject: string; body: Json }>> {
  const out: Array<{ subject: string; body: Json }> = [];
  for (let seq = 1; seq <= (await bus.streamInfo(stream)).lastSeq; seq++) {
    const m = await bus.getMessage(stream, seq);
    if (m) out.push({ subject: m.subject, body: JSON.parse(decoder.decode(m.data)) as Json });
  }
  return out;
}

const base = (op_id: string) => ({
  op_id,
  at: '2026-11-26T12:00:00.000Z',
  actor: 'ada',
  turn_id: null,
  id: itemId,
});

/** The record that creates ENG-1 with `fields` over the defaults. */
const created = (
  op_id: string,
  fields: { title: string } & Partial<ReturnType<typeof defaultFields>>,
): WorkRecord => ({
  kind: 'item.created',
  ...base(op_id),
  project: 'ENG',
  key: 'ENG-1',
  number: 1,
  status: 'backlog',
  fields: { ...defaultFields(), ...fields },
});

/** Appends `record` as the writer does, then nothing else: the writer's node dies here. */
async function appendThenDie(bus: Bus, record: WorkRecord): Promise<void> {
  await bus.publish(Subjects.work('p.ENG'), encoder.encode(JSON.stringify(record)), {
    msgId: `work:${record.op_id}`,
  });
}

async function scenario(t: Test, bus: Bus): Promise<void> {
  await ensureCatalogue(bus);
  const view = await followWork({ bus, logger });
  t.teardown(() => view.stop());
  const start = (onBus: Bus) =>
    startWorkHost({ bus: onBus, view, context: () => context, nodeId: 'node-0', logger });

  // A node ran the tracker before (its effects consumer exists), then the writer died after an append.
  await (await start(bus)).stop();
  await appendThenDie(bus, created('crash-1', { title: 'Survives', assignees: ['coder', 'bob'] }));
  t.ok(await view.until((await bus.streamInfo(Streams.Work)).lastSeq, 30_000), 'the record is folded');
  t.same(await stored(bus, Streams.Events), [], 'no event was published by the dead writer');
  t.same(await stored(bus, Streams.Inbox), [], 'no seat was woken by the dead writer');

  // The next node's host delivers them; its first wake fails after the events went out.
  const flaky = failingOnce(bus, Subjects.agentInbox('coder'));
  let host = await start(flaky.bus);
  const wakes = await until(
    () => stored(bus, Streams.Inbox),
    (m) => m.length > 0,
  );
  t.equal(flaky.attempts(), 2, 'the wake failed once and was delivered again');
  t.same(
    wakes.map((w) => [w.subject, w.body['id'], w.body['kind'], w.body['source']]),
    [['svc.agent.coder.inbox', 'work:crash-1:coder', 'assignment', 'work:ENG-1']],
    'the agent is woken once; the human is skipped',
  );
  let events = await stored(bus, Streams.Events);
  t.same(
    events.map((e) => [e.body['type'], (e.body['payload'] as Json)['assignee'] ?? null]),
    [
      ['TaskCreated', null],
      ['TaskAssigned', 'coder'],
      ['TaskAssigned', 'bob'],
    ],
    'each event stored once though the redelivery published them again',
  );
  t.equal(events[1]?.body['agent_id'], 'coder');
  t.match(events[0]?.body['payload'], { op_id: 'crash-1', item: { key: 'ENG-1', title: 'Survives' } });
  await host.stop();

  // Two more records land while no host runs: a hand-over, then a rename.
  await appendThenDie(bus, { kind: 'item.updated', ...base('crash-2'), changes: { assignees: ['ada'] } });
  await appendThenDie(bus, { kind: 'item.updated', ...base('crash-3'), changes: { title: 'Renamed' } });
  await appendThenDie(bus, { kind: 'item.moved', ...base('crash-4'), from: 'backlog', to: 'done' });
  host = await start(bus);
  t.teardown(() => host.stop());
  events = await until(
    () => stored(bus, Streams.Events),
    (e) => e.some((x) => x.body['type'] === 'TaskCompleted'),
  );
  t.same(
    events.slice(3).map((e) => e.body['type']),
    ['TaskAssigned', 'TaskDelegated', 'TaskCompleted'],
  );
  t.match(
    events[3]?.body['payload'],
    { assignee: 'ada', item: { title: 'Survives' } },
    'the hand-over names the item as it stood then, not as renamed after',
  );
  t.match(events[4]?.body['payload'], { from: ['coder', 'bob'], to: ['ada'] });
  t.match(events[5]?.body['payload'], { from: 'backlog', item: { title: 'Renamed' } });
  t.equal((await stored(bus, Streams.Inbox)).length, 1, 'a human assignee is not woken');
  t.equal(new Set(events.map((e) => e.body['id'])).size, events.length, 'every event once');
}

t.test('memory bus: effects of a record whose writer died are delivered once', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await scenario(t, bus);
});

t.test('JetStream: effects of a record whose writer died are delivered once', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  await scenario(t, bus);
});

t.test(
  'comment wakes past notification_rate_limit are skipped and recorded, sharing the webhook window',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const view = await followWork({ bus, logger });
    t.teardown(() => view.stop());
    const wakes = new RateWindow();
    // One webhook notification already woke coder this minute on this node.
    t.ok(wakes.admit('coder', 2, Date.now()));
    const host = await startWorkHost({
      bus,
      view,
      context: () => ({ ...context, notificationRateLimit: 2 }),
      nodeId: 'node-0',
      logger,
      wakes,
    });
    t.teardown(() => host.stop());
    await appendThenDie(bus, {
      kind: 'item.created',
      ...base('c-0'),
      project: 'ENG',
      key: 'ENG-1',
      number: 1,
      status: 'backlog',
      fields: { ...defaultFields(), title: 'Chatty' },
    });
    for (const n of [1, 2])
      await appendThenDie(bus, {
        kind: 'item.commented',
        ...base(`c-${n}`),
        comment: { id: `cm-${n}`, author: 'ada', body: `@coder look (${n})`, at: '2026-11-26T12:00:00.000Z' },
      });
    const skipped = await until(
      () => stored(bus, Streams.Events),
      (e) => e.some((x) => x.body['type'] === 'NotificationSkipped'),
    );
    const inbox = await stored(bus, Streams.Inbox);
    t.same(
      inbox.map((w) => [w.body['id'], w.body['kind']]),
      [['work:c-1:coder', 'mention']],
      'the first comment wakes coder; the second is over the limit of 2 with the webhook wake',
    );
    t.match(skipped.find((x) => x.body['type'] === 'NotificationSkipped')?.body, {
      category: 'notification',
      agent_id: 'coder',
      payload: { notification: 'work:c-2', vendor: 'work', recipient: 'coder', reason: 'rate_limited', limit_per_minute: 2 }, // prettier-ignore
    });
  },
);
