/**
 * A work tool's write that the bus acknowledged is done, even when the node's view does not fold it in
 * time (a node draining): told as a failure, the model would make the change again under a new call.
 * Two writers on one memory bus: the second's view is stopped, so it never shows what it appends.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { startWorkHost, workTools, type WorkAccess, type WorkContext } from '../../../actors/index.js';
import { ensureCatalogue, Streams } from '../../../bus/index.js';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { followWork } from '../../../projections/index.js';
import { projectsOf, seatKindsOf } from '../../../schema/index.js';
import { company } from '../../http/fixtures/work-harness.js';
import { until } from '../../harness/until.js';

/** A bus with the work catalogue, and a writer whose view is stopped: it never shows what it appends. */
async function laggingWriter(t: Test) {
  // A view's waits time out on unref'd timers: with nothing else pending the process would just end.
  const alive = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(alive));
  const logger = pino({ level: 'silent' });
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const context: WorkContext = { projects: projectsOf(company), seats: seatKindsOf(company) };
  const stale = await followWork({ bus, logger });
  await stale.stop();
  const lagging = await startWorkHost({
    bus,
    view: stale,
    context: () => context,
    nodeId: 'n2',
    logger,
    deliverEffects: false,
    catchUpMs: 50,
  });
  t.teardown(() => lagging.stop());
  return { bus, logger, context, stale, lagging };
}

t.test('a work write appended but not yet shown by the view answers done, not failed', async (t) => {
  const { bus, logger, context, stale, lagging } = await laggingWriter(t);
  const live = await followWork({ bus, logger });
  t.teardown(() => live.stop());
  const host = await startWorkHost({ bus, view: live, context: () => context, nodeId: 'n1', logger });
  t.teardown(() => host.stop());
  const access: WorkAccess = {
    state: () => stale.state(),
    write: (w) => lagging.write(w),
    until: (seq, ms) => stale.until(seq, ms),
  };
  const create = workTools({ work: () => access, readBackMs: 50 }).find(
    (tool) => tool.entry.name === 'work_create',
  )!;
  const result = await create.call(
    { seat: 'coder', agent_id: 'agent-coder', turn_id: 'turn-1', call_id: 'call-1' },
    { project: 'ENG', title: 'Written while draining' },
  );
  const text = result.content.map((c) => ('text' in c ? c.text : '')).join('');
  t.equal(result.is_error, false, text);
  t.match(JSON.parse(text), { key: 'ENG-1', position: 'SVC_WORK@1:1', note: /does not show it yet/ });
  t.equal((await bus.streamInfo(Streams.Work)).lastSeq, 1, 'written once');
  await until(
    () => Promise.resolve(live.state().items.size),
    (n) => n === 1,
  );
});

t.test('the host answers such a write as done to every caller: the REST routes too, not a 500', async (t) => {
  const { bus, lagging } = await laggingWriter(t);
  // The routes send this as a work.write command and answer `item: null` until their own view shows it.
  const reply = await lagging.write({
    op_id: 'rest-1',
    actor: 'coder',
    turn_id: null,
    change: { kind: 'create', project: 'ENG', fields: { title: 'Written over REST while draining' } },
  });
  t.match(reply, { outcome: 'ok', op_id: 'rest-1', key: 'ENG-1', position: 'SVC_WORK@1:1', repeated: false });
  t.equal((await bus.streamInfo(Streams.Work)).lastSeq, 1, 'written once');
});
