// /config/<kind>/<id>: one entity read and written on its own.
import t from 'tap';
import { firstRevision, json, startConfigNode } from './fixtures/config-node.js';

t.test('entity routes: get, replace, identity rules, create-only, and no DELETE', async (t) => {
  const node = await startConfigNode(t);
  await firstRevision(node);
  const seat = await node.call('GET', '/config/roles/bo-agent');
  t.equal(seat.status, 200);
  t.match(await json(seat), { name: 'Bo Agent' });
  t.equal((await node.call('GET', '/config/roles/nobody')).status, 404);
  const missing = await node.call('PUT', '/config/roles/nobody', {
    body: { name: 'Nobody' },
    headers: { 'x-summary': 's' },
  });
  t.equal((await json(missing))['error'], 'no_such_entity');
  const replaced = await node.call('PUT', '/config/roles/bo-agent', {
    body: { name: 'Bo Agent', goal: 'Keep the platform up.' },
    headers: { 'x-summary': 'goal' },
  });
  t.equal(replaced.status, 201);
  t.equal((await json(await node.call('GET', '/config/roles/bo-agent')))['goal'], 'Keep the platform up.');
  const renamed = await node.call('PUT', '/config/roles/bo-agent', {
    body: { name: 'Bo Renamed' },
    headers: { 'x-summary': 's' },
  });
  t.equal((await json(renamed))['error'], 'identity_mismatch', 'an omitted handle with a changed name');
  const createSeat = await node.call('PUT', '/config/roles/new-seat', {
    body: { name: 'New Seat' },
    headers: { 'x-summary': 's', 'if-none-match': '*' },
  });
  t.equal((await json(createSeat))['error'], 'not_creatable');
  const provider = { type: 'openai', model: 'gpt-4o', api_keys: ['${OPENAI_KEY}'] };
  const created = await node.call('PUT', '/config/llm-providers/second', {
    body: provider,
    headers: { 'x-summary': 's', 'if-none-match': '*' },
  });
  t.equal(created.status, 201);
  const exists = await node.call('PUT', '/config/llm-providers/second', {
    body: provider,
    headers: { 'x-summary': 's', 'if-none-match': '*' },
  });
  t.equal(exists.status, 412);
  t.equal((await json(exists))['error'], 'entity_exists');
  const unknownField = await node.call('PUT', '/config/mcp-servers/docs', {
    body: { name: 'docs', command: 'x', colour: 'blue' },
    headers: { 'x-summary': 's' },
  });
  t.equal(unknownField.status, 400);
  t.match(await json(unknownField), { error: 'invalid_body', problems: [{ kind: 'unknown_field' }] });
  const del = await node.call('DELETE', '/config/roles/bo-agent');
  t.equal(del.status, 405);
  t.equal(del.headers.get('allow'), 'GET, PUT');
});
