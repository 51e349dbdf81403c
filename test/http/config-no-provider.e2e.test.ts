/**
 * A company document that leaves an agent seat with no provider chain is answered with a `no_provider`
 * warning per such seat, on a dry run and on a storing write alike; one whose `llm_order` is empty while
 * providers exist is refused (admission rule A4), naming the seat (ops/config.md "Seats without a provider").
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'test' };
const put = (url: string, doc: unknown, dryRun = false) =>
  fetch(`${url}/config${dryRun ? '?dry_run=true' : ''}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify(doc),
  });
const warningsOf = (body: Record<string, unknown>) =>
  (body['warnings'] as Array<Record<string, unknown>>).filter((w) => w['kind'] === 'no_provider');

const seats = {
  roles: [
    { name: 'Ada', handle: 'ada' },
    { name: 'Dana', handle: 'dana', kind: 'human', contact: { operator_id: 'dana' } },
    { name: 'Pinned', handle: 'pinned', llm: 'main' },
  ],
  units: [{ name: 'Eng', type: 'team', roles: [{ name: 'Bo', handle: 'bo' }] }],
};
const main = { type: 'openai', model: 'gpt-main', api_keys: ['sk-test-key'] };

t.test('a write that leaves agent seats with no provider warns, naming each seat', async (t) => {
  const node = await startNode(t);
  const none = {
    name: 'Acme',
    timezone: 'UTC',
    roles: seats.roles.filter((r) => r.handle !== 'pinned'),
    units: seats.units,
    providers: { llm_order: [] },
  };
  const expected = [
    { kind: 'no_provider', path: 'roles[0].llm', seat: 'ada', message: /providers\.llm has no entry/ },
    { kind: 'no_provider', path: 'units[0].roles[0].llm', seat: 'bo', unit: 'Eng' },
  ];

  const dry = await put(node.url, none, true);
  t.equal(dry.status, 200);
  const dryBody = (await dry.json()) as Record<string, unknown>;
  t.match(dryBody, { valid: true });
  t.match(warningsOf(dryBody), expected, 'the dry run names both agent seats');
  t.equal(warningsOf(dryBody).length, 2, 'the human seat is not named');

  const stored = await put(node.url, none);
  t.equal(stored.status, 201, 'stored: the spec asks no seat to have a provider');
  const storedBody = (await stored.json()) as Record<string, unknown>;
  t.match(warningsOf(storedBody), expected, 'the write names them too');
  t.equal(warningsOf(storedBody).length, 2);

  // With providers written, an empty llm_order leaves the unpinned seats with none: refused, naming them.
  const emptyOrder = { name: 'Acme', timezone: 'UTC', ...seats, providers: { llm: { main }, llm_order: [] } };
  for (const dryRun of [true, false]) {
    const refused = await put(node.url, emptyOrder, dryRun);
    t.equal(refused.status, 400, `dry_run=${String(dryRun)}`);
    const problems = ((await refused.json()) as { problems: Array<Record<string, unknown>> }).problems;
    t.match(
      problems.map((p) => [p['path'], p['seat']]),
      [
        ['roles[0].llm', 'ada'],
        ['units[0].roles[0].llm', 'bo'],
      ],
    );
    t.equal(problems.length, 2, 'the pinned seat has its provider');
  }

  const served = await put(node.url, {
    name: 'Acme',
    timezone: 'UTC',
    ...seats,
    providers: { llm: { main } },
  });
  t.equal(served.status, 201);
  t.same(warningsOf((await served.json()) as Record<string, unknown>), [], 'every seat resolves a provider');
});
