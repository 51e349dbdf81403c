/**
 * A provision or check of a kind the active document carries no block for runs no pass: there is nothing
 * to provision or check, so the answer is a refusal saying to connect it first, and no run is recorded.
 */
import t from 'tap';
import { company, json, KEYRING, startSetupNode } from './fixtures/setup-node.js';

for (const mode of ['provision', 'check'] as const) {
  t.test(
    `${mode} of a kind with no block is 409 no_such_entity naming the inputs route; no run`,
    async (t) => {
      const node = await startSetupNode(t, { tierA: KEYRING });
      await node.putDocument(company());
      const res = await node.call('POST', `/setup/integrations/tracker-b/${mode}`);
      const body = await json(res);
      t.equal(res.status, 409, JSON.stringify(body));
      t.match(body, {
        error: 'no_such_entity',
        detail: /integrations\.tracker_b/,
        hint: /POST \/setup\/integrations\/tracker-b\/inputs/,
      });
      t.notOk('status' in body || 'steps' in body, 'no run in the answer');
      t.same(
        (await json(await node.call('GET', '/setup/integrations/tracker-b/runs')))['runs'],
        [],
        'none kept',
      );
    },
  );

  t.test(`${mode} with no active revision at all is 409 no_active_revision; no run`, async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    const res = await node.call('POST', `/setup/integrations/codehost-b/${mode}`);
    const body = await json(res);
    t.equal(res.status, 409, JSON.stringify(body));
    t.match(body, { error: 'no_active_revision', hint: /PUT \/config/ });
    t.same((await json(await node.call('GET', '/setup/integrations/codehost-b/runs')))['runs'], []);
  });
}

t.test('a kind without a block (monitor) is still checked: its pass says what is missing', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  await node.putDocument(company());
  const res = await node.call('POST', '/setup/integrations/monitor/check');
  t.equal(res.status, 200);
  t.match(await json(res), { kind: 'monitor', mode: 'check', status: 'failed' });
});
