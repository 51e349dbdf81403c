/**
 * A pause lasts as long as the seat's own record of it in `svc_coord`, which outlives the 30-day event
 * history: a node that starts with the record but no `agent_paused` event reads the seat paused in
 * `/agents`, `/agents/{id}` and the snapshot, and a resume clears it there.
 */
import t from 'tap';
import { TOKEN } from '../harness/serve-node.js';
import { stoppedNodeWithAda } from '../harness/stopped-node.js';
import { until } from '../harness/until.js';

const json = async (url: string, init?: RequestInit): Promise<Record<string, unknown>> =>
  (await (await fetch(url, init)).json()) as Record<string, unknown>;

t.test('a pause older than the event history still reads paused after a restart', async (t) => {
  const stopped = await stoppedNodeWithAda(t);
  const first = stopped.node;

  // The seat's record of a pause whose agent_paused event has left the history.
  const paused = { by: 'ops', at: '2026-01-02T03:04:05Z', reason: 'audit', stop_running: false };
  const { bus, coord } = await stopped.openStore();
  await coord.put('seat.ada.paused', new TextEncoder().encode(JSON.stringify(paused)));
  await bus.close();

  const second = await stopped.restart();
  const listed = ((await (await fetch(`${first.url}/agents`)).json()) as Array<Record<string, unknown>>)[0]!;
  t.match(listed, { id: 'ada', paused, activity: 'stopped', stopped_reason: 'paused' });
  t.match(await json(`${first.url}/agents/ada`), { paused, stopped_reason: 'paused' });
  const snapshot = await json(`${first.url}/stream/snapshot`);
  t.match(snapshot['agents'], { ada: { paused, stopped_reason: 'paused' } });

  const resumed = await fetch(`${first.url}/agents/ada/resume`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(resumed.status, 200);
  const after = await until(
    () => json(`${first.url}/agents/ada`),
    (row) => row['paused'] === null,
    10_000,
  );
  t.match(after, { paused: null, activity: 'idle' }, 'a resume clears it');
  second.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
