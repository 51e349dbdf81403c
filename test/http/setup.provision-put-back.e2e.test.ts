/**
 * A provision whose seat-token revision is refused puts back what it sealed (setup.put-back.ts): a value
 * another writer stored under a name since the provision's seal is kept, not overwritten with the older
 * one, and a name the store cannot put back is named in the answer (`unrestored_secrets`) and the log,
 * never a value. The bus under the node is real (memory engine); a hook acts at the moment the
 * provision sends its revision, after its seals.
 */
import t, { type Test } from 'tap';
import { NoRespondersError } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { Commands } from '../../schema/index.js';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { hookedBus } from './fixtures/hooked-bus.js';
import { KEYRING, mintingCodehostB, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const CB_TOKEN = 'cb-owner-token-0123456789';
const CHIEF = 'SVC_CODEHOST_B_CHIEF_AGENT_TOKEN';
const BO = 'SVC_CODEHOST_B_BO_AGENT_TOKEN';
const secretsCommands = new Set([Commands.secrets.put.subject, Commands.secrets.delete.subject]);

/**
 * Runs a provision that loses its revision to one stored during the pass; `atWrite` runs as the provision
 * sends that revision (its tokens are sealed by then), and `storeDown` then fails every secrets command.
 */
async function losingProvision(
  t: Test,
  opts: { atWrite?: (node: SetupNode) => Promise<void>; storeDown?: boolean },
) {
  const vendor = await fakeCodehostB(t, CB_TOKEN);
  const inner = await openMemoryBus({});
  t.teardown(() => inner.close());
  let armed = false;
  let down = false;
  const bus = hookedBus(inner, {
    async request(subject, forward) {
      if (down && secretsCommands.has(subject)) throw new NoRespondersError(`no responders on ${subject}`);
      if (armed && subject === Commands.config.write.subject) {
        armed = false;
        await opts.atWrite?.(node);
        down = opts.storeDown ?? false;
      }
      return forward();
    },
  });
  const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN }, bus });
  await node.putDocument(mintingCodehostB(vendor.url));
  // A value under the chief seat's name that no seat references: the provision replaces it.
  t.equal((await node.call('PUT', `/secrets/${CHIEF}`, { body: 'earlier-chief-value' })).status, 200);
  vendor.beforeAnswer = async (seen) => {
    if (seen.method !== 'POST' || !seen.path.endsWith('/access_tokens') || armed) return;
    await node.putDocument(mintingCodehostB(vendor.url, 'Acme Two'));
    armed = true;
  };
  const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
  const text = await res.text();
  t.equal(res.status, 409, text);
  t.equal(vendor.tokens.length, 2, 'both were minted at the vendor');
  for (const k of vendor.tokens) t.notMatch(text + node.rawLogs(), String(k['token']), 'no minted value');
  t.notMatch(text + node.rawLogs(), /earlier-chief-value|concurrent-chief-value/, 'no stored value');
  return { node, body: JSON.parse(text) as Json, minted: vendor.tokens.map((k) => String(k['token'])) };
}

t.test(
  'a value another writer stored after the provision sealed its token is kept, not put back',
  async (t) => {
    const { node, body } = await losingProvision(t, {
      atWrite: async (node) => {
        const put = await node.call('PUT', `/secrets/${CHIEF}`, { body: 'concurrent-chief-value' });
        t.equal(put.status, 200);
      },
    });
    t.match(body, { error: 'revision_advanced', unstored_seat_tokens: ['chief-agent', 'bo-agent'] });
    t.notOk('unrestored_secrets' in body, 'everything was put back or kept');
    t.equal(node.secrets.resolve(CHIEF), 'concurrent-chief-value', "the other writer's value is kept");
    t.equal(node.secrets.resolve(BO), undefined, 'the token under a name nobody wrote since is removed');
    t.match(node.rawLogs(), new RegExp(`"event":"setup_secret_kept","kind":"codehost-b","name":"${CHIEF}"`));
  },
);

t.test('a token the store cannot remove or put back is named in the answer and the log', async (t) => {
  const { node, body, minted } = await losingProvision(t, { storeDown: true });
  t.match(body, {
    error: 'revision_advanced',
    unstored_seat_tokens: ['chief-agent', 'bo-agent'],
    unrestored_secrets: [CHIEF, BO],
    detail: new RegExp(`${CHIEF}, ${BO} could not be removed or put back`),
  });
  for (const name of [CHIEF, BO]) {
    t.match(
      node.rawLogs(),
      new RegExp(`"event":"setup_seat_token_restore_failed","kind":"codehost-b","name":"${name}"`),
    );
    t.ok(minted.includes(String(node.secrets.resolve(name))), `${name} still holds the minted token`);
  }
});
