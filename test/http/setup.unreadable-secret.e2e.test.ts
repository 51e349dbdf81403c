/**
 * A credential the secret store holds sealed under a key this node's keyring lacks is there, but cannot be
 * opened here: the requirement says so (`unreadable` with the record's `key_id`, as `/secrets` and a rekey
 * name such a record), rather than reading as not set, so the operator restores the key or enters it again.
 * The record is written straight into the store's bucket, as a node with another keyring would have sealed it.
 */
import t from 'tap';
import { keyringFrom, seal } from '../../bus/index.js';
import { secretAad } from '../../schema/index.js';
import { company, json, KEYRING, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Req = Record<string, unknown> & { field: string };
type State = Record<string, unknown> & { requirements: Req[] };
const FOREIGN_VALUE = 'sealed-elsewhere-0123456789abcdef';
const other = keyringFrom({
  active_key_id: 'k9',
  keys: [{ id: 'k9', material: Buffer.alloc(32, 9).toString('base64') }],
})!;

async function sealElsewhere(node: SetupNode, name: string): Promise<void> {
  const record = {
    v: 1,
    name,
    sealed: seal(other, FOREIGN_VALUE, secretAad(name)),
    key_id: 'k9',
    updated_at: new Date().toISOString(),
    updated_by: 'ops',
    source: 'api',
  };
  await node.bucket.put(name, new TextEncoder().encode(JSON.stringify(record)));
  await node.secrets.view.until((s) => s.entries.has(name), 30_000);
}

const requirement = async (node: SetupNode, kind: string, field: string): Promise<Req | undefined> =>
  ((await json(await node.call('GET', `/setup/integrations/${kind}`))) as State).requirements.find(
    (r) => r.field === field,
  );

t.test(
  'a secret sealed under a key this node lacks reads as present but unreadable, never as not set',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(
      company({
        integrations: {
          wiki: { cloud_id: 'site-1', email: 'a@example.test', token: '${SVC_WIKI_TOKEN}' },
          chat: {},
        },
        roles: [
          { name: 'Chief Agent', integrations: { chat: { bot_token: '${SVC_CHAT_CHIEF_AGENT_BOT_TOKEN}' } } },
          { name: 'Bo Agent' },
        ],
      }),
    );
    for (const name of [
      'SVC_MONITOR_WEBHOOK_TOKEN',
      'SVC_WIKI_WEBHOOK_TOKEN',
      'SVC_WIKI_TOKEN',
      'SVC_CHAT_CHIEF_AGENT_BOT_TOKEN',
    ])
      await sealElsewhere(node, name);

    const unreadable = (name: string) => ({
      present: true,
      resolved: null,
      unreadable: [{ name, key_id: 'k9' }],
    });
    // Store-only secrets: the store holds the name, so it is present, and says why it does not resolve.
    t.match(await requirement(node, 'monitor', 'webhook_token'), unreadable('SVC_MONITOR_WEBHOOK_TOKEN'));
    t.match(await requirement(node, 'wiki', 'webhook_token'), unreadable('SVC_WIKI_WEBHOOK_TOKEN'));
    t.match(
      await json(await node.call('GET', '/setup/integrations/monitor')),
      { configured: true, satisfied: false },
      'the monitor is configured but unusable here, so its finding is raised',
    );
    // A document reference: present (the document names it) and unreadable rather than merely unresolved.
    t.match(await requirement(node, 'wiki', 'token'), unreadable('SVC_WIKI_TOKEN'));
    // Per seat: the seat's row says it, and so does the requirement.
    const bot = await requirement(node, 'chat', 'bot_token');
    t.match(bot, { unreadable: [{ name: 'SVC_CHAT_CHIEF_AGENT_BOT_TOKEN', key_id: 'k9' }] });
    t.match(
      (bot?.['seats'] as Req[] | undefined)?.find((s) => s['handle'] === 'chief-agent'),
      {
        present: false,
        unreadable: [{ name: 'SVC_CHAT_CHIEF_AGENT_BOT_TOKEN', key_id: 'k9' }],
      },
    );

    // A name this node opens, or one the store does not hold, carries no such mark.
    t.equal((await node.call('PUT', '/secrets/SVC_WIKI_TOKEN', { body: 'wiki-api-token-1' })).status, 200);
    const opened = await requirement(node, 'wiki', 'token');
    t.match(opened, { present: true, resolved: 'store' });
    t.notOk(opened && 'unreadable' in opened, 'a secret that opens is not unreadable');
    const codehost = await requirement(node, 'codehost-a', 'webhook_secret');
    t.notOk(codehost && 'unreadable' in codehost, 'an unset secret is not unreadable');

    const all = JSON.stringify(await json(await node.call('GET', '/setup/integrations')));
    t.notMatch(all, FOREIGN_VALUE, 'no value in the answer');
  },
);
