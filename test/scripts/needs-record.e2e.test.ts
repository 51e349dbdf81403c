/**
 * An open question lasts as long as the seat's own log holds it, which keeps records without age: a node that
 * starts with the question in the log but no event of it in the history reads the seat `needs` in `/agents`,
 * `/agents/{id}` and the snapshot, and clearing the question clears it there.
 */
import t from 'tap';
import { Subjects } from '../../bus/index.js';
import { TOKEN } from '../harness/serve-node.js';
import { stoppedNodeWithAda } from '../harness/stopped-node.js';
import { until } from '../harness/until.js';

const json = async (url: string, init?: RequestInit): Promise<Record<string, unknown>> =>
  (await (await fetch(url, init)).json()) as Record<string, unknown>;

t.test('a question asked longer ago than the event history still reads needs after a restart', async (t) => {
  const stopped = await stoppedNodeWithAda(t);
  const first = stopped.node;

  // The seat's log records a question whose announcing event has left the history.
  const need = {
    id: 'need-old-1',
    to: 'dana',
    question: 'Which branch do we ship from?',
    context: null,
    urgency: 'normal',
    asked_at: '2026-01-02T03:04:05.000Z',
    turn_id: 'turn-old-1',
  };
  const { bus } = await stopped.openStore();
  const record = { kind: 'need_recorded', at: need.asked_at, node: 'node-old', need };
  await bus.publish(Subjects.seatLog('ada'), new TextEncoder().encode(JSON.stringify(record)));
  await bus.close();

  const second = await stopped.restart();
  const listed = ((await (await fetch(`${first.url}/agents`)).json()) as Array<Record<string, unknown>>)[0]!;
  t.match(listed, {
    id: 'ada',
    activity: 'needs',
    stopped_reason: null,
    needs: { reason: need.question, since: need.asked_at },
  });
  t.match(await json(`${first.url}/agents/ada`), { activity: 'needs' });
  const snapshot = await json(`${first.url}/stream/snapshot`);
  t.match(snapshot['agents'], { ada: { activity: 'needs' } });

  // The question is the seat's: clearing it names it, and the row follows the log's closing record.
  const cleared = await fetch(`${first.url}/agents/ada/needs/clear`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(cleared.status, 200);
  t.match(await cleared.json(), { id: 'ada', cleared: [need.id], open: [] });
  const after = await until(
    () => json(`${first.url}/agents/ada`),
    (row) => row['activity'] !== 'needs',
    10_000,
  );
  t.match(after, { activity: 'idle', needs: null }, 'clearing it clears the row');
  second.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
