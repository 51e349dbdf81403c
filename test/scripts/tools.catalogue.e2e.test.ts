/**
 * The tool catalogue of a serving node (spec "Tool catalogue entry", "WebSocket and snapshot"): `/tools`,
 * the snapshot's `tools` and the `tools` frame a config apply re-sends list the same entries, each with
 * `name`, `description`, `source`, `annotations`, `delivers` and `input_schema`.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { dashboard } from '../http/fixtures/events-node.js';

const entryFields = ['annotations', 'delivers', 'description', 'input_schema', 'name', 'source'];

t.test('/tools, the snapshot and the tools frame list the same builtin entries', async (t) => {
  const node = await startNode(t);
  const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
  t.teardown(() => d.client.close());
  await d.next((f) => f.kind === 'snapshot');
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'tools' },
    body: JSON.stringify({ name: 'Acme', timezone: 'UTC', roles: [{ name: 'Ada', handle: 'ada' }] }),
  });
  t.equal(put.status, 201);
  const frame = await d.next((f) => f.kind === 'tools');
  const tools = (await (await fetch(`${node.url}/tools`)).json()) as Array<Record<string, unknown>>;
  const snapshot = (await (await fetch(`${node.url}/stream/snapshot`)).json()) as Record<string, unknown>;
  t.same(snapshot['tools'], tools, 'the snapshot holds /tools');
  t.same(frame.data, tools, 'the frame a config apply re-sends holds /tools');
  for (const entry of tools) {
    t.same(Object.keys(entry).sort(), entryFields, `${String(entry['name'])}: the entry fields`);
    t.equal(entry['source'], 'builtin', `${String(entry['name'])}: no tool server is configured`);
    t.equal((entry['input_schema'] as Record<string, unknown>)['type'], 'object');
  }
  const byName = new Map(tools.map((entry) => [entry['name'], entry]));
  t.match(byName.get('memory_remember'), {
    delivers: 'personal_memory',
    annotations: { readOnlyHint: false },
  });
  t.match(byName.get('memory_recall'), { delivers: null, annotations: { readOnlyHint: true } });
  t.match(byName.get('ask_human'), { delivers: 'needs' });
  t.ok(byName.has('org_lookup'));
});
