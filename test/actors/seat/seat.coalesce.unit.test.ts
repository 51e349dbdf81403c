import t from 'tap';
import {
  batchable,
  coalescingOf,
  defaultMaxBatch,
  inWindow,
  mergeWakes,
  windowLeft,
} from '../../../actors/seat/seat.coalesce.js';
import { Company, type InboxMessage } from '../../../schema/index.js';

const wake = (id: string, over: Partial<InboxMessage> = {}): InboxMessage => ({
  id,
  kind: 'notification',
  source: 'webhook:tracker-b',
  received_at: '2026-11-27T10:00:00.000Z',
  trace_id: `trace-${id}`,
  summary: `summary ${id}`,
  payload: { notification: { id } },
  ...over,
});

t.test('the settings: seconds to ms, the batch size defaulting when only a window is set', async (t) => {
  t.same(coalescingOf(null), { windowMs: 0, maxBatch: defaultMaxBatch });
  const doc = Company.parse({ name: 'Acme', notification_coalesce_window_seconds: 2.5 });
  t.same(coalescingOf(doc), { windowMs: 2500, maxBatch: defaultMaxBatch });
  const both = Company.parse({
    name: 'Acme',
    notification_coalesce_window_seconds: 20,
    notification_coalesce_max_batch: 4,
  });
  t.same(coalescingOf(both), { windowMs: 20_000, maxBatch: 4 });
});

t.test('notifications and mentions batch; schedules and other wakes do not', async (t) => {
  t.ok(batchable(wake('a')));
  t.ok(batchable(wake('a', { kind: 'mention' })));
  t.notOk(batchable(wake('a', { kind: 'schedule' })));
  t.notOk(batchable(wake('a', { kind: 'work_assigned' })));
});

t.test('a batch runs as its first wake, names each and is a mention when any is', async (t) => {
  const first = wake('a', { from: 'hu' });
  t.equal(mergeWakes(first, []), first, 'a batch of one is the wake itself');
  const merged = mergeWakes(first, [wake('b', { kind: 'mention' }), wake('c', { summary: 'x'.repeat(400) })]);
  t.match(merged, { id: 'a', trace_id: 'trace-a', from: 'hu', kind: 'mention', source: first.source });
  t.match(merged.summary, /^3 notifications:\n- summary a\n- summary b\n- x{300}…$/);
  const batch = merged.payload['batch'] as Array<{ id: string; payload: unknown }>;
  t.same(
    batch.map((b) => b.id),
    ['a', 'b', 'c'],
  );
  t.same(batch[1]!.payload, { notification: { id: 'b' } }, 'each wake keeps its payload');
});

t.test('the window is counted from when the wake was received', async (t) => {
  const at = '2026-11-27T10:00:00.000Z';
  t.equal(windowLeft(at, new Date('2026-11-27T10:00:00.400Z'), 1000), 600);
  t.equal(windowLeft(at, new Date('2026-11-27T10:00:02.000Z'), 1000), 0, 'past: no wait');
  t.equal(
    windowLeft(at, new Date('2026-11-27T09:59:00.000Z'), 1000),
    1000,
    'a clock behind waits the window at most',
  );
  t.equal(windowLeft('not a time', new Date(), 1000), 0, 'an unreadable time waits nothing');
});

t.test('a wake joins only when it was received within the first one’s window', async (t) => {
  const first = wake('a');
  const at = (ms: number) =>
    wake('b', { received_at: new Date(Date.parse(first.received_at) + ms).toISOString() });
  t.ok(inWindow(first, at(0), 2000), 'received with it');
  t.ok(inWindow(first, at(2000), 2000), 'at the window’s end');
  t.notOk(inWindow(first, at(2001), 2000), 'after the window: a wake of its own');
  t.ok(inWindow(first, at(-500), 2000), 'stamped before it (another node’s clock)');
  t.notOk(inWindow(first, wake('c', { received_at: 'soon' }), 2000), 'an unreadable stamp never joins');
});
