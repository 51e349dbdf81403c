/**
 * A setup inputs write whose second credential the secret store does not acknowledge (its server lost)
 * is rolled back, and the credential it had sealed is put back: a value another writer stored under the
 * name meanwhile is kept, and a name the store does not take back is named in the answer
 * (`unrestored_secrets`) and the log, never a value. The answer is coded (503 `outcome_unknown`: the
 * unacknowledged seal may or may not have landed). The bus is real (memory engine); a hook fails the
 * store's commands from the second seal on, as a lost server does.
 */
import t, { type Test } from 'tap';
import { NoRespondersError, RequestTimeoutError } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { Commands } from '../../schema/index.js';
import { hookedBus } from './fixtures/hooked-bus.js';
import { company, KEYRING, sendTrackerB, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const TOKEN = 'SVC_TRACKER_B_TOKEN';
const WEBHOOK = 'SVC_TRACKER_B_WEBHOOK_SECRET';
const VALUES = [
  'tb-earlier-token-0123456789',
  'tb-new-token-0123456789',
  'tb-new-webhook-0123456789',
] as const;
const secretsCommands = new Set([Commands.secrets.put.subject, Commands.secrets.delete.subject]);

/**
 * Sends a token and a webhook secret; the second seal is not answered, `atSecondSeal` runs just before
 * it, and with `storeDown` no later secrets command is answered either.
 */
async function unacknowledgedSeal(
  t: Test,
  opts: { atSecondSeal?: (node: SetupNode) => Promise<void>; storeDown?: boolean },
) {
  const inner = await openMemoryBus({});
  t.teardown(() => inner.close());
  let puts = -1;
  let down = false;
  let inHook = false;
  const bus = hookedBus(inner, {
    async request(subject, forward) {
      if (inHook || !secretsCommands.has(subject) || puts < 0) return forward();
      if (down) throw new NoRespondersError(`no responders on ${subject}`);
      if (++puts !== 2) return forward();
      inHook = true;
      await opts.atSecondSeal?.(node);
      inHook = false;
      down = opts.storeDown ?? false;
      throw new NoRespondersError(`no responders on ${subject}`);
    },
  });
  const node = await startSetupNode(t, { tierA: KEYRING, bus });
  const first = await node.putDocument(company());
  t.equal((await node.call('PUT', `/secrets/${TOKEN}`, { body: VALUES[0] })).status, 200);
  puts = 0;
  const res = await sendTrackerB(node, first, { token: VALUES[1], webhook_secret: VALUES[2] });
  const text = await res.text();
  t.equal(res.status, 503, text);
  for (const value of [...VALUES, 'tb-concurrent-token'])
    t.notMatch(text + node.rawLogs(), value, 'no credential in the answer or a log line');
  const body = JSON.parse(text) as Json;
  t.match(body, {
    error: 'outcome_unknown',
    rolled_back_revision_id: String,
    unacknowledged_secret: WEBHOOK,
    detail: new RegExp(`${WEBHOOK} was sent to the secret store but not acknowledged.*rolled back`),
  });
  const active = (await (await node.call('GET', '/config')).json()) as Json;
  t.notOk('integrations' in active, 'the revision is rolled back');
  return { node, body };
}

t.test('a value another writer stored after the write sealed it is kept, not put back', async (t) => {
  const { node, body } = await unacknowledgedSeal(t, {
    atSecondSeal: async (node) => {
      t.equal((await node.call('PUT', `/secrets/${TOKEN}`, { body: 'tb-concurrent-token' })).status, 200);
    },
  });
  t.notOk('unrestored_secrets' in body);
  t.equal(node.secrets.resolve(TOKEN), 'tb-concurrent-token', "the other writer's value is kept");
  t.match(node.rawLogs(), new RegExp(`"event":"setup_secret_kept","kind":"tracker-b","name":"${TOKEN}"`));
});

t.test('a credential the store does not take back is named in the answer and the log', async (t) => {
  const { node, body } = await unacknowledgedSeal(t, { storeDown: true });
  t.match(body, {
    unrestored_secrets: [TOKEN],
    detail: new RegExp(`${TOKEN} could not be put back`),
    hint: /unrestored_secrets: check each with GET \/secrets\/\{name\}/,
  });
  t.equal(node.secrets.resolve(TOKEN), VALUES[1], 'the store still holds what the write sealed');
  t.match(
    node.rawLogs(),
    new RegExp(`"event":"setup_inputs_restore_failed","kind":"tracker-b","name":"${TOKEN}"`),
  );
});

t.test(
  'a credential whose seal lands without an answer is put back like an acknowledged one when the write is undone',
  async (t) => {
    const inner = await openMemoryBus({});
    t.teardown(() => inner.close());
    let puts = -1;
    const bus = hookedBus(inner, {
      async request(subject, forward) {
        if (puts < 0 || subject !== Commands.secrets.put.subject) return forward();
        if (++puts === 2) throw new NoRespondersError(`no responders on ${subject}`);
        if (puts !== 1) return forward();
        await forward();
        // This node reads the first seal landed; its answer is lost.
        await node.secrets.view.until((s) => (s.entries.get(TOKEN)?.revision ?? 0) > earlier, 30_000);
        throw new RequestTimeoutError(`request to ${subject} timed out`);
      },
    });
    const node = await startSetupNode(t, { tierA: KEYRING, bus });
    const first = await node.putDocument(company());
    t.equal((await node.call('PUT', `/secrets/${TOKEN}`, { body: VALUES[0] })).status, 200);
    const earlier = node.secrets.view.state.entries.get(TOKEN)?.revision ?? 0;
    puts = 0;
    const res = await sendTrackerB(node, first, { token: VALUES[1], webhook_secret: VALUES[2] });
    const text = await res.text();
    t.equal(res.status, 503, text);
    t.match(JSON.parse(text), { error: 'outcome_unknown', unacknowledged_secret: WEBHOOK });
    t.notOk('unrestored_secrets' in (JSON.parse(text) as Json));
    t.equal(node.secrets.resolve(TOKEN), VALUES[0], 'the landed, unanswered seal is put back');
    for (const value of VALUES)
      t.notMatch(text + node.rawLogs(), value, 'no credential in the answer or a log');
  },
);
