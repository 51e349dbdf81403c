import t from 'tap';
import { company, KEYRING, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const revisions = async (node: SetupNode): Promise<number> =>
  (await json(await node.call('GET', '/config/revisions')))['total'] as number;
/** What the store holds, read from its bucket (this node's store cannot open records). */
const storedNames = (node: SetupNode): string[] =>
  [...node.secrets.view.state.entries].flatMap(([name, e]) => (e.record ? [name] : []));

t.test(
  'a credential the store cannot seal after the revision was stored: the revision is rolled back and the answer is coded',
  async (t) => {
    // The setup routes hold a keyring; the node answering the store's commands holds none.
    const node = await startSetupNode(t, { tierA: KEYRING, storeTierA: '' });
    const first = await node.putDocument(company());
    const res = await node.call('POST', '/setup/integrations/tracker-b/inputs', {
      body: {
        if_match: first,
        values: { url: 'https://tb.example.test', workspace: 'acme', token: 'tb-unsealable-0123456789' },
      },
    });
    const text = await res.text();
    t.equal(res.status, 503, text);
    const body = JSON.parse(text) as Json;
    t.match(body, { error: 'no_keyring', detail: /could not be sealed.*nothing was changed.*rolled back/ });
    t.notMatch(text, 'tb-unsealable-0123456789', 'no credential in the answer');
    const rolledBack = body['rolled_back_revision_id'] as string;
    t.ok(rolledBack, 'names the revision that was rolled back');
    t.not(rolledBack, first);
    t.equal(await revisions(node), 3, 'the first, the write, and its rollback');
    const doc = await json(await node.call('GET', '/config'));
    t.notOk('integrations' in doc, 'the active document is the one read: it references no unsealed secret');
    const state = await json(await node.call('GET', '/setup/integrations/tracker-b'));
    t.match(state, { configured: false });
    t.not(state['revision_id'], rolledBack, 'the rollback is active, not the write');
    const meta = await json(await node.call('GET', `/config/revisions/${state['revision_id'] as string}`));
    t.match(meta, { summary: /setup tracker-b: rolled back/ });
    t.same(storedNames(node), [], 'nothing sealed');
    t.notMatch(node.rawLogs(), 'tb-unsealable-0123456789', 'logs carry no value');
    // Sending it again after the store is fixed starts from the same document: nothing is half-applied.
    const again = await node.call('POST', '/setup/integrations/tracker-b/inputs', {
      body: { values: { url: 'https://tb.example.test' } },
    });
    t.equal(again.status, 201, 'a write with no credential still proceeds');
  },
);

t.test('a store-only credential the store cannot seal stores nothing and is coded', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING, storeTierA: '' });
  await node.putDocument(company());
  const res = await node.call('POST', '/setup/integrations/monitor/inputs', {
    body: { generate: ['webhook_token'] },
  });
  t.equal(res.status, 503);
  t.match(await json(res), { error: 'no_keyring', detail: /nothing was changed/ });
  t.equal(await revisions(node), 1);
  t.same(storedNames(node), []);
});
