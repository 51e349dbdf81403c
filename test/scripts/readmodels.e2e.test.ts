/**
 * The read models inside `svc serve`: a config apply re-sends the org and seats, and a restart seeds
 * agents and spend from the stored streams before the listener binds.
 */
import { join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { dashboard } from '../http/fixtures/events-node.js';
import { event, phaseCompleted, spend } from '../projections/fixtures/readmodels.js';

const company = {
  name: 'Acme',
  timezone: 'UTC',
  roles: [
    { name: 'Ada', handle: 'ada' },
    {
      name: 'Bob',
      handle: 'bob',
      kind: 'human',
      email: 'bob@example.com',
      contact: { chat_user_id: 'U0BOB' },
    },
  ],
};

const json = async (url: string): Promise<Record<string, unknown>> =>
  (await (await fetch(url)).json()) as Record<string, unknown>;

t.test(
  'a config apply feeds /org and /agents; a restart seeds history and spend from the streams',
  async (t) => {
    const first = await startNode(t);
    const d = await dashboard(`${first.url.replace('http', 'ws')}/ws/stream`);
    t.match(await d.next((f) => f.kind === 'snapshot'), { data: { agents: {}, org: { name: '' } } });
    const put = await fetch(`${first.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'first' },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201);
    await first.run.waitForLog((line) => line.msg === 'config applied');
    // The apply reaches the socket: org, seats and tools re-sent once each, agent rows replaced.
    // Agent rows are replaced during the apply; seats, org and tools follow once revision_applied is out.
    t.match(await d.next((f) => f.kind === 'agents'), { data: { ada: { id: 'ada', activity: 'idle' } } });
    t.match(await d.next((f) => f.kind === 'seats'), {
      data: [{ handle: 'ada' }, { handle: 'bob', kind: 'human' }],
    });
    t.match(await d.next((f) => f.kind === 'org'), { data: { name: 'Acme', timezone: 'UTC' } });
    t.equal(d.frames.filter((f) => f.kind === 'org').length, 1, 'org is pushed once per apply');
    d.client.close();
    await d.client.closed;
    const org = await json(`${first.url}/org`);
    t.same(
      (org['roles'] as Array<Record<string, unknown>>).map((r) => [r['handle'], r['kind']]),
      [
        ['ada', 'agent'],
        ['bob', 'human'],
      ],
    );
    t.notOk(JSON.stringify(org).includes('bob@example.com'));
    t.notOk(JSON.stringify(org).includes('U0BOB'));
    const agents = (await (await fetch(`${first.url}/agents`)).json()) as Array<{
      id: string;
      activity: string;
    }>;
    t.same(
      agents.map((a) => [a.id, a.activity]),
      [['ada', 'idle']],
    );
    const snapshot = await json(`${first.url}/stream/snapshot`);
    t.match(snapshot, {
      org: { name: 'Acme' },
      agents: { ada: { id: 'ada', activity: 'idle', stopped_reason: null, paused: null, live_call: null } },
      budget: { cap: 0, used: 0 },
      tokens: { records: 0 },
      sandboxes: [],
      tools: [],
    });
    t.notOk('bob' in (snapshot['agents'] as object), 'human seats are not agents');
    first.run.kill('SIGTERM');
    t.equal(await first.run.exited, 0);

    // Write history into the stopped node's store, as the turn engine would have.
    const bus = await openMemoryBus({ storeDir: join(first.dir, 'data') });
    await ensureCatalogue(bus);
    const now = new Date().toISOString();
    const done = event('agent_phase_completed', 'ada', phaseCompleted('turn-1', 'plan', now), now);
    await bus.publish(Subjects.event(done.type), new TextEncoder().encode(JSON.stringify(done)), {
      msgId: done.id,
    });
    const used = spend({ handle: 'ada', role: 'Ada', agent_id: 'x', timestamp: now, total_tokens: 42 });
    await bus.publish(Subjects.spend('llm'), new TextEncoder().encode(JSON.stringify(used)), {
      msgId: used.id,
    });
    await bus.close();

    const second = runSvc(['serve', '--config', first.configFile], { SVC_TOKEN: TOKEN });
    t.teardown(() => second.kill('SIGKILL'));
    await second.waitForLog((line) => line.msg === 'node serving');
    const ada = await json(`${first.url}/agents/ada`);
    t.match(ada, {
      id: 'ada',
      llm_history: [{ turn_id: 'turn-1', phase: 'plan' }],
      tokens: { total_tokens: 42 },
    });
    t.match(await json(`${first.url}/tokens/breakdown`), { totals: { total_tokens: 42, calls: 1 } });
    t.match(await json(`${first.url}/budgets`), { org: { cap: 0, used: 42, refused: false } });
    second.kill('SIGTERM');
    t.equal(await second.exited, 0);
  },
);

t.test('a reload moves /org, the snapshot and the org frame to the new revision', async (t) => {
  const node = await startNode(t);
  const auth = { authorization: `Bearer ${TOKEN}` };
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'first' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201);
  await node.run.waitForLog((line) => line.msg === 'config applied');
  const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
  await d.next((f) => f.kind === 'snapshot');
  const reload = await fetch(`${node.url}/config/reload`, { method: 'POST', headers: auth });
  t.equal(reload.status, 201);
  const revision = ((await reload.json()) as { revision_id: string }).revision_id;
  t.match(await d.next((f) => f.kind === 'org'), { data: { revision_id: revision } });
  // Every apply re-sends the config-derived sections whole, an identical document's too (spec "Events" 7).
  const since = d.frames.findIndex((f) => f.kind === 'snapshot') + 1;
  const resent = async (kind: string) => {
    for (;;) {
      const found = d.frames.slice(since).find((f) => f.kind === kind && Array.isArray(f.data));
      if (found) return found;
      await d.next(() => true);
    }
  };
  t.match(await resent('seats'), { data: [{ handle: 'ada' }, { handle: 'bob', kind: 'human' }] });
  t.match(await resent('tools'), { kind: 'tools' }, 'tools re-sent');
  t.equal((await json(`${node.url}/org`))['revision_id'], revision);
  t.match(await json(`${node.url}/stream/snapshot`), { org: { revision_id: revision } });
  d.client.close();
  await d.client.closed;
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});

t.test('after a restart /org and the snapshot name the active revision', async (t) => {
  const first = await startNode(t);
  const put = await fetch(`${first.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'first' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201);
  const revision = ((await put.json()) as { revision_id: string }).revision_id;
  await first.run.waitForLog((line) => line.msg === 'config applied');
  t.equal((await json(`${first.url}/org`))['revision_id'], revision, 'the live node names it');
  first.run.kill('SIGTERM');
  t.equal(await first.run.exited, 0);

  const second = runSvc(['serve', '--config', first.configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => second.kill('SIGKILL'));
  await second.waitForLog((line) => line.msg === 'node serving');
  t.equal((await json(`${first.url}/org`))['revision_id'], revision, 'the restarted node names it too');
  t.match(await json(`${first.url}/stream/snapshot`), { org: { revision_id: revision } });
  second.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
