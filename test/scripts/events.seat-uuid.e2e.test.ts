/**
 * The seat filter of the event reads (`agent_id`, alias `seat`) takes a seat's durable agent id, the UUID an
 * `/agents` row carries as `agent_id`, in any case, as that seat's handle: event rows name the seat by its
 * handle, so an operator copying the id from `/agents` read an empty feed. One `svc serve` node, its real
 * listener, a company of two agent seats and a human one.
 */
import t from 'tap';
import { capture } from '../harness/capture.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { dashboard } from '../http/fixtures/events-node.js';
import { main } from '../../scripts/svc.js';

type Json = Record<string, unknown>;
type Row = Record<string, string>;
const auth = { authorization: `Bearer ${TOKEN}` };

t.test(
  'the seat filter of the event reads takes a seat’s agent_id (UUID, any case) as its handle',
  async (t) => {
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'seats' },
      body: JSON.stringify({
        name: 'Acme',
        roles: [
          { name: 'Ada' },
          { name: 'Bob' },
          { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } },
        ],
      }),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const agents = (await (await fetch(`${node.url}/agents`, { headers: auth })).json()) as Array<{
      id: string;
      agent_id: string;
    }>;
    const uuidOf = (handle: string): string => agents.find((a) => a.id === handle)?.agent_id ?? '';
    const ada = uuidOf('ada');
    const bob = uuidOf('bob');
    t.match(
      bob,
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      '/agents names the UUID',
    );

    // Bob's pause is an event of his seat; the socket's `event` frame says the projection holds it.
    const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
    t.teardown(() => d.client.close());
    await d.next((f) => f.kind === 'snapshot');
    const pause = await fetch(`${node.url}/agents/bob/pause`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'maintenance' }),
    });
    t.equal(pause.status, 200);
    await d.next((f) => f.kind === 'event' && f.data.type === 'agent_paused' && f.data.agent_id === 'bob');

    const get = async (path: string): Promise<{ status: number; body: Json }> => {
      const res = await fetch(`${node.url}${path}`, { headers: auth });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const types = (body: Json): string[] =>
      (body['rows'] as Row[]).map((r) => `${r['type']}:${r['agent_id']}`);

    const byHandle = await get('/events?agent_id=bob');
    t.same(types(byHandle.body), ['agent_paused:bob'], 'the handle reads the seat’s events');
    for (const query of [
      `agent_id=${bob}`,
      `agent_id=${bob.toUpperCase()}`,
      `seat=${bob}`,
      `agent_id=${bob}&seat=bob`,
      `agent_id=BOB&seat=${bob.toUpperCase()}`,
    ]) {
      const read = await get(`/events?${query}`);
      t.equal(read.status, 200, query);
      t.same(read.body['rows'], byHandle.body['rows'], `${query}: the same rows as agent_id=bob`);
    }
    t.same(
      (await get(`/events?agent_id=${ada}`)).body['rows'],
      [],
      'another seat’s UUID reads its own events',
    );

    // The other reads taking the seat filter resolve it alike.
    const series = await get(`/query/event_series?since_hours=1&agent_id=${bob.toUpperCase()}`);
    t.equal(series.status, 200);
    t.equal(
      series.body['total'],
      (await get('/query/event_series?since_hours=1&agent_id=bob')).body['total'],
    );
    t.equal(series.body['total'], 1);
    for (const what of ['turns', 'phases']) {
      const read = await get(`/query/${what}?seat=${bob}`);
      t.equal(read.status, 200, what);
      t.same(read.body['rows'], [], `${what}: read by the seat (it has none)`);
    }

    // A UUID naming no seat answers as an unknown handle does: 200 and no rows, no 404.
    const nobody = await get('/events?agent_id=nobody');
    const stranger = await get('/events?agent_id=00000000-0000-5000-8000-000000000000');
    t.equal(nobody.status, 200);
    t.equal(stranger.status, 200);
    t.same(stranger.body['rows'], nobody.body['rows']);
    t.same(stranger.body['rows'], []);
    t.equal(
      (await get('/query/event_series?agent_id=00000000-0000-5000-8000-000000000000')).body['total'],
      0,
    );

    // The seat routes take the UUID too: the row, and a pause sent to the seat by its handle.
    const row = await get(`/agents/${ada.toUpperCase()}`);
    t.equal(row.status, 200, 'GET /agents/{agent_id}');
    t.equal(row.body['id'], 'ada');
    const paused = await fetch(`${node.url}/agents/${ada}/pause`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    t.equal(paused.status, 200, 'POST /agents/{agent_id}/pause');
    t.match(await paused.json(), { id: 'ada', paused: { by: 'ops' } });

    // Two different seats are still refused, whichever way each is named.
    for (const query of [`agent_id=${ada}&seat=bob`, `agent_id=${ada}&seat=${bob}`]) {
      const refused = await get(`/events?${query}`);
      t.equal(refused.status, 400, query);
      t.match(refused.body, { error: 'bad_params', detail: /agent_id and seat/ }, query);
    }
  },
);

t.test(
  'svc events tail --seat takes the seat as the reads do: a handle in any case or its UUID',
  async (t) => {
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'seats' },
      body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }, { name: 'Bob' }] }),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const agents = (await (await fetch(`${node.url}/agents`, { headers: auth })).json()) as Array<{
      id: string;
      agent_id: string;
    }>;
    const bob = agents.find((a) => a.id === 'bob')?.agent_id ?? '';
    const env = { SVC_TOKEN: TOKEN };

    const stranger = capture();
    const unknown = '00000000-0000-5000-8000-000000000000';
    const refused = await main(
      ['events', 'tail', '--seat', unknown, '--url', node.url],
      env,
      capture(),
      stranger,
    );
    t.equal(refused, 1, 'a UUID naming no seat is refused rather than tailing forever');
    t.match(stranger.text(), /^svc events: 404 /);

    const tails = [bob.toUpperCase(), 'BOB'].map((seat) => {
      const out = capture();
      const err = capture();
      const code = main(['events', 'tail', '--seat', seat, '--url', node.url], env, out, err);
      return { seat, out, err, code };
    });
    for (const tail of tails) {
      // A tail that ends before following the stream says why, rather than leaving the test to time out.
      const ended = await Promise.race([tail.err.until('tailing').then(() => null), tail.code]);
      t.equal(ended, null, `${tail.seat}: follows the stream (${tail.err.text().trim()})`);
    }
    // Ada's pause first, then Bob's: once Bob's is printed, Ada's would have been.
    for (const handle of ['ada', 'bob']) {
      const paused = await fetch(`${node.url}/agents/${handle}/pause`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'maintenance' }),
      });
      t.equal(paused.status, 200);
    }
    for (const tail of tails) {
      await tail.out.until('"agent_id":"bob"');
      t.match(tail.out.text(), /"type":"agent_paused"/, `${tail.seat}: Bob's pause is printed`);
      t.notMatch(tail.out.text(), /"agent_id":"ada"/, `${tail.seat}: Ada's is not`);
    }
    node.run.kill('SIGTERM');
    for (const tail of tails) t.equal(await tail.code, 3, `${tail.seat}: the node going away ends it`);
  },
);
