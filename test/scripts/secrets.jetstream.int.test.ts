/**
 * The secret store on a real JetStream server shared by two nodes: a write answered by either node is
 * seen by the other's read model and resolver, a rekey and a delete too.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { ensureCatalogue } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { secretRecord } from '../../projections/index.js';
import { Commands, parseTierA, SecretReply } from '../../schema/index.js';
import { startSecrets } from '../../scripts/secrets-wiring.js';
import { startNatsServer } from '../harness/nats-server.js';
import { keyringYaml } from '../http/fixtures/secrets-node.js';

const logger = pino({ level: 'silent' });
const enc = new TextEncoder();
const dec = new TextDecoder();
const server = await startNatsServer({ t });
const actor = { id: 'ops', kind: 'operator' };

async function node(t: Test, tierA: string) {
  const bus = await openJetStreamBus({ url: server.url });
  t.teardown(() => bus.close());
  const catalogue = await ensureCatalogue(bus);
  const parsed = parseTierA(tierA, { env: {}, cwd: '/' });
  if (!parsed.ok) throw new Error('tier A');
  const secrets = await startSecrets({
    bus,
    bucket: catalogue.secrets,
    config: parsed.config,
    logger,
    env: {},
  });
  t.teardown(() => secrets.stop());
  const send = async (verb: keyof typeof Commands.secrets, body: unknown) =>
    SecretReply.parse(
      JSON.parse(
        dec.decode(
          (
            await bus.request(Commands.secrets[verb].subject, enc.encode(JSON.stringify(body)), {
              timeoutMs: 10_000,
            })
          ).data,
        ),
      ),
    );
  return { secrets, send };
}

t.test(
  'two nodes on one JetStream share the store: writes, rekey and delete reach both read models',
  async (t) => {
    const a = await node(t, keyringYaml('k1', ['k1', 1]));
    const b = await node(t, keyringYaml('k1', ['k1', 1]));
    const put = await a.send('put', {
      name: 'SHARED_TOKEN',
      value_b64: Buffer.from('shared-value').toString('base64'),
      source: 'api',
      actor,
    });
    t.match(put, { outcome: 'ok', secret: { key_id: 'k1' } });
    t.ok(
      await b.secrets.view.until((s) => secretRecord(s, 'SHARED_TOKEN') !== null, 10_000),
      'b sees the put',
    );
    // Either node may have served the put (one command subject): each read model follows the store.
    t.ok(
      await a.secrets.view.until((s) => secretRecord(s, 'SHARED_TOKEN') !== null, 10_000),
      'a sees the put',
    );
    t.equal(b.secrets.resolve('SHARED_TOKEN'), 'shared-value');
    t.equal(a.secrets.resolve('SHARED_TOKEN'), 'shared-value');
    t.match(await b.send('rekey', { actor }), { outcome: 'ok', moved: [] });
    t.match(await b.send('delete', { name: 'SHARED_TOKEN', actor }), { outcome: 'ok', removed: true });
    t.ok(
      await a.secrets.view.until((s) => secretRecord(s, 'SHARED_TOKEN') === null, 10_000),
      'a sees the delete',
    );
    t.equal(a.secrets.resolve('SHARED_TOKEN'), undefined);
  },
);

t.test('a node started after the writes catches up with the bucket before it answers', async (t) => {
  const a = await node(t, keyringYaml('k1', ['k1', 1]));
  for (const name of ['LATE_ONE', 'LATE_TWO', 'LATE_THREE'])
    await a.send('put', {
      name,
      value_b64: Buffer.from(name.toLowerCase()).toString('base64'),
      source: 'api',
      actor,
    });
  await a.send('delete', { name: 'LATE_TWO', actor });
  const late = await node(t, keyringYaml('k1', ['k1', 1]));
  t.equal(late.secrets.resolve('LATE_ONE'), 'late_one');
  t.equal(late.secrets.resolve('LATE_TWO'), undefined);
  t.equal(late.secrets.resolve('LATE_THREE'), 'late_three');
});
