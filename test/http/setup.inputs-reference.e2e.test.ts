import t from 'tap';
import { company, json, KEYRING, postInputs, startSetupNode, storedSecret } from './fixtures/setup-node.js';

t.test(
  'a credential given as a ${VAR} reference is refused, not sealed as its own text over the stored value',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company());
    const first = await postInputs(node, 'tracker-b', {
      values: { url: 'https://tb.example.test', workspace: 'acme', token: 'tb-real-token-0123456789' },
    });
    t.equal(first.status, 201);
    // The setup read shows the credential as its reference; a form sending back what it read must not
    // overwrite the credential with that text.
    const state = await json(await node.call('GET', '/setup/integrations/tracker-b'));
    const token = (state['requirements'] as Array<Record<string, unknown>>).find(
      (r) => r['field'] === 'token',
    );
    t.equal(token?.['value'], '${SVC_TRACKER_B_TOKEN}');
    const res = await postInputs(node, 'tracker-b', { values: { token: '${SVC_TRACKER_B_TOKEN}' } });
    t.equal(res.status, 400);
    const body = await json(res);
    t.equal(body['error'], 'invalid_body');
    t.match(body['problems'], [{ path: 'values.token', kind: 'shape' }]);
    t.equal(storedSecret(node, 'SVC_TRACKER_B_TOKEN'), 'tb-real-token-0123456789', 'the stored value stays');
  },
);
