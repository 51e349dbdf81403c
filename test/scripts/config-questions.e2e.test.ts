/**
 * The dashboard's configuration questions on a real `svc serve` (spec "Configuration routes": `config`,
 * `config_diff`, `config_entities` on the query channel): guarded like `/config`, redacted like it, and
 * answered the same on `GET /query/{what}` and on the socket.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { root } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { dashboard } from '../http/fixtures/events-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };

async function ask(url: string, what: string, params = '', headers: Record<string, string> = auth) {
  const res = await fetch(`${url}/query/${what}${params}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

t.test('config, config_diff and config_entities answer the dashboard, guarded and redacted', async (t) => {
  const node = await startNode(t);
  const first = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/yaml', 'x-summary': 'example' },
    body: readFileSync(join(root, 'ops', 'company.example.yaml'), 'utf8'),
  });
  t.equal(first.status, 201);
  const firstId = ((await first.json()) as { revision_id: string }).revision_id;
  const second = await fetch(`${node.url}/config`, {
    method: 'PATCH',
    headers: {
      ...auth,
      'content-type': 'application/merge-patch+json',
      'x-summary': 'new mission',
      'if-match': `"${firstId}"`,
    },
    body: JSON.stringify({
      mission: 'Robots that fix themselves.',
      providers: { llm: { primary: { api_keys: ['sk-live-very-secret-value'] } } },
    }),
  });
  t.ok(second.ok, 'the patch is accepted');
  const secondId = ((await second.json()) as { revision_id: string }).revision_id;

  for (const what of ['config', 'config_diff', 'config_entities']) {
    const refused = await ask(node.url, what, '', {});
    t.equal(refused.status, 401, `${what} needs a token, as /config does`);
  }

  const active = await ask(node.url, 'config');
  t.equal(active.status, 200);
  t.equal(active.body['revision_id'], secondId, 'the active revision by default');
  t.equal(active.body['is_active'], true);
  t.match(active.body['yaml'], /Robots that fix themselves\./, 'the document as YAML');
  t.notMatch(JSON.stringify(active.body), /sk-live-very-secret-value/, 'secrets never leave the node');
  t.match(active.body['yaml'], /encrypted: true/, 'a secret reads as its marker');
  const older = await ask(node.url, 'config', `?revision=${firstId}`);
  t.equal(older.body['revision_id'], firstId, 'any stored revision by id');
  t.equal(older.body['is_active'], false);
  const unknown = await ask(node.url, 'config', '?revision=00000000-0000-4000-8000-000000000000');
  t.equal(unknown.status, 404);
  t.equal(unknown.body['error'], 'not_found');

  const diff = await ask(node.url, 'config_diff');
  t.equal(diff.status, 200);
  t.equal(diff.body['from'], firstId, 'by default the active revision against its parent');
  t.equal(diff.body['to'], secondId);
  const paths = (diff.body['changes'] as Array<{ path: string }>).map((c) => c.path);
  t.ok(
    paths.some((p) => p.includes('mission')),
    'the mission change is listed',
  );
  t.notMatch(JSON.stringify(diff.body), /sk-live-very-secret-value/, 'a diff is redacted too');
  const backwards = await ask(node.url, 'config_diff', `?from=${secondId}&to=${firstId}`);
  t.equal(backwards.body['from'], secondId, 'any two revisions, either way round');

  const seats = await ask(node.url, 'config_entities', '?kind=roles');
  t.equal(seats.status, 200);
  const handles = (seats.body['entities'] as Array<{ id: string; kind: string }>).map((e) => e.id);
  t.ok(handles.includes('theo-park') && handles.includes('maria-keller'), 'seats anywhere in the tree');
  t.ok(handles.length >= 10, 'every seat of the example');
  const all = await ask(node.url, 'config_entities');
  const kinds = new Set((all.body['entities'] as Array<{ kind: string }>).map((e) => e.kind));
  t.same([...kinds].sort(), ['llm-providers', 'mcp-servers', 'roles', 'units'], 'all four kinds by default');
  t.notMatch(JSON.stringify(all.body), /sk-live-very-secret-value/, 'entity views are redacted');
  const bad = await ask(node.url, 'config_entities', '?kind=secrets');
  t.equal(bad.status, 400);
  t.equal(bad.body['error'], 'bad_params');

  // The same questions on the socket: refused without a token, answered with one.
  const ws = node.url.replace('http:', 'ws:');
  const anonymous = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => anonymous.client.close());
  anonymous.client.send(JSON.stringify({ kind: 'query', id: 1, what: 'config', params: {} }));
  const refusedFrame = await anonymous.next((f) => f.kind === 'error' || f.kind === 'result');
  t.equal(refusedFrame.kind, 'error');
  t.equal(refusedFrame.data.error, 'unauthorized');
  const operator = await dashboard(`${ws}/ws/stream?token=${TOKEN}`);
  t.teardown(() => operator.client.close());
  operator.client.send(
    JSON.stringify({ kind: 'query', id: 'e', what: 'config_entities', params: { kind: 'units' } }),
  );
  const entities = await operator.next((f) => f.kind === 'result' || f.kind === 'error');
  t.equal(entities.kind, 'result');
  t.equal(entities.data.id, 'e');
  t.ok(
    (entities.data.data.entities as Array<{ id: string }>).some((e) => e.id === 'Platform'),
    'units by name',
  );

  // A write that only rotates a key is one change on the socket too, the key a marker on both sides.
  const rotate = await fetch(`${node.url}/config`, {
    method: 'PATCH',
    headers: { ...auth, 'content-type': 'application/merge-patch+json', 'x-summary': 'rotate' },
    body: JSON.stringify({ providers: { llm: { primary: { api_keys: ['sk-live-rotated-value'] } } } }),
  });
  t.ok(rotate.ok, 'the rotation is accepted');
  operator.client.send(JSON.stringify({ kind: 'query', id: 'd', what: 'config_diff', params: {} }));
  const rotation = await operator.next((f) => f.kind === 'result' || f.kind === 'error');
  t.equal(rotation.kind, 'result');
  const marker = { encrypted: true, key_id: null };
  t.match(rotation.data.data, {
    changes_total: 1,
    changes: [{ path: 'providers.llm.primary.api_keys', kind: 'changed', from: [marker], to: [marker] }],
  });
  t.notMatch(JSON.stringify(rotation.data), /sk-live/, 'neither key appears in the answer');
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});
