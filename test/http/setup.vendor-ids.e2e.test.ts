import t from 'tap';
import { company, KEYRING, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const inputs = (node: SetupNode, kind: string, values: Record<string, string>) =>
  node.call('POST', `/setup/integrations/${kind}/inputs`, { body: { values } });
const revisions = async (node: SetupNode): Promise<number> =>
  (await json(await node.call('GET', '/config/revisions')))['total'] as number;

t.test('an odd vendor id is 400 validation_error naming the field, and nothing is stored', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const odd: Array<[kind: string, field: string, value: string, kind: 'shape' | 'out_of_range']> = [
    ['wiki', 'cloud_id', '   ', 'shape'],
    ['wiki', 'cloud_id', 'abc def', 'shape'],
    ['wiki', 'cloud_id', 'abc\u0000def', 'shape'],
    ['wiki', 'cloud_id', 'a'.repeat(101), 'out_of_range'],
    ['wiki', 'cloud_id', '../../rest/api/user', 'shape'],
    ['wiki', 'cloud_id', 'site?x=1#y', 'shape'],
    ['tracker-a', 'cloud_id', 'site%2F..', 'shape'],
    ['codehost-b', 'group', '\t', 'shape'],
    ['codehost-b', 'group', 'acme team', 'shape'],
    ['codehost-b', 'group', 'acme/../admin', 'shape'],
    ['codehost-b', 'group', 'acme/', 'shape'],
    ['codehost-b', 'group', 'acme?private=1', 'shape'],
    ['codehost-b', 'group', 'g'.repeat(256), 'out_of_range'],
    ['tracker-b', 'workspace', 'acme/other', 'shape'],
    ['tracker-a', 'relay_app_id', 'relay 7\n', 'shape'],
    // A base URL is where vendor paths are appended: a query or fragment would swallow them (and a
    // credential in a query string would read back on every setup answer).
    ['codehost-b', 'url', 'https://cb.example.test/?private_token=tok-0123456789', 'shape'],
    ['tracker-b', 'url', 'https://tb.example.test/#frag', 'shape'],
    ['tracker-a', 'url', 'https://ta.example.test?x', 'shape'],
  ];
  for (const [kind, field, value, problemKind] of odd) {
    const res = await inputs(node, kind, { [field]: value });
    const text = await res.text();
    const label = `${kind} ${field} ${JSON.stringify(value.slice(0, 20))}`;
    t.equal(res.status, 400, label);
    t.match(JSON.parse(text), {
      error: 'validation_error',
      problems: [{ path: `values.${field}`, segments: ['values', field], kind: problemKind }],
    }, label); // prettier-ignore
    if (value.trim().length > 3) t.notMatch(text, value.trim(), `${label}: the value is not echoed`);
  }
  t.equal(await revisions(node), 1, 'no revision was stored');
});

t.test('vendor ids of the accepted shapes, and whole references, still pass', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const good: Array<[kind: string, values: Record<string, string>]> = [
    ['wiki', { cloud_id: ' a436116f-02ce-4520-8fbb-7301462a1674\n' }],
    ['tracker-a', { cloud_id: '${SITE_CLOUD_ID}', relay_app_id: 'ari:cloud:ecosystem::app/1b2c-3d' }],
    ['codehost-b', { url: 'https://cb.example.test', group: 'acme/platform.team/sub_group-2' }],
  ];
  for (const [kind, values] of good) {
    const res = await inputs(node, kind, values);
    t.equal(res.status, 201, `${kind}: ${await res.text()}`);
  }
  const doc = (await json(await node.call('GET', '/config')))['integrations'] as Record<string, Json>;
  t.equal(doc['wiki']!['cloud_id'], 'a436116f-02ce-4520-8fbb-7301462a1674', 'trimmed');
  t.equal(doc['tracker_a']!['cloud_id'], '${SITE_CLOUD_ID}');
  t.equal((doc['codehost_b']!['provisioning'] as Json)['group'], 'acme/platform.team/sub_group-2');
  const removed = await inputs(node, 'wiki', { cloud_id: '' });
  t.equal(removed.status, 400, '"" still removes the field (the wiki then lacks a site)');
  t.match(await json(removed), { problems: [{ path: 'integrations.wiki', message: /url.*cloud_id/ }] });
  // tracker-b and the wiki exclude each other: the wiki goes first.
  t.equal((await node.call('DELETE', '/setup/integrations/wiki')).status, 200);
  const workspace = await inputs(node, 'tracker-b', {
    url: 'https://tb.example.test',
    workspace: 'acme_ws-1',
  });
  t.equal(workspace.status, 201, await workspace.text());
});
