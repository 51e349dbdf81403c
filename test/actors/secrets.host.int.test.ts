import { pino } from 'pino';
import t, { type Test } from 'tap';
import { startSecretsHost } from '../../actors/index.js';
import { decidePut } from '../../actors/secrets/secrets.decide.js';
import { ensureCatalogue, keyringFrom, open, type Keyring } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { followSecrets, secretRecord, secretsThenEnv, storeResolver } from '../../projections/index.js';
import { Commands, secretAad, SecretReply, substituteRefs } from '../../schema/index.js';

const logger = pino({ level: 'silent' });
const enc = new TextEncoder();
const dec = new TextDecoder();
const material = (byte: number): string => Buffer.alloc(32, byte).toString('base64');
const ring = (active: string, ...keys: Array<[string, number]>): Keyring =>
  keyringFrom({ active_key_id: active, keys: keys.map(([id, b]) => ({ id, material: material(b) })) })!;
const actor = { id: 'ops', kind: 'operator' };

async function store(t: Test, keyring: Keyring | null) {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const { secrets: bucket } = await ensureCatalogue(bus);
  const host = startSecretsHost({ bus, bucket, keyring, logger });
  t.teardown(() => host.stop());
  const view = await followSecrets({ bucket, logger });
  t.teardown(() => view.stop());
  const send = async (verb: keyof typeof Commands.secrets, body: unknown): Promise<SecretReply> => {
    const answer = await bus.request(Commands.secrets[verb].subject, enc.encode(JSON.stringify(body)), {
      timeoutMs: 5000,
    });
    const reply = SecretReply.parse(JSON.parse(dec.decode(answer.data)));
    if (reply.outcome === 'ok')
      await view.until(
        (s) =>
          (s.entries.get(String((body as { name?: string }).name))?.revision ?? 0) >= reply.revision ||
          reply.revision === 0,
        30_000,
      );
    return reply;
  };
  const put = (name: string, value: string | Buffer, source = 'api') =>
    send('put', { name, value_b64: Buffer.from(value).toString('base64'), source, actor });
  return { bus, bucket, view, send, put };
}

t.test('a put stores the value sealed under the active key, bound to its name', async (t) => {
  const keyring = ring('k1', ['k1', 1]);
  const s = await store(t, keyring);
  const reply = await s.put('TRACKER_TOKEN', 'tok-abcdef-123456');
  t.match(reply, {
    outcome: 'ok',
    secret: { name: 'TRACKER_TOKEN', key_id: 'k1', updated_by: 'ops', source: 'api' },
  });
  const raw = dec.decode((await s.bucket.get('TRACKER_TOKEN'))!.value);
  t.notMatch(raw, /tok-abcdef-123456/, 'the bucket never holds the value in clear');
  t.notMatch(raw, new RegExp(Buffer.from('tok-abcdef-123456').toString('base64')));
  const record = secretRecord(s.view.state, 'TRACKER_TOKEN')!;
  t.match(record.sealed, /^enc:v1:k1:/);
  t.equal(open(keyring, record.sealed, secretAad('TRACKER_TOKEN')).toString(), 'tok-abcdef-123456');
});

t.test('arbitrary bytes round-trip exactly', async (t) => {
  const keyring = ring('k1', ['k1', 1]);
  const s = await store(t, keyring);
  const bytes = Buffer.from([0, 255, 10, 13, 0xc3, 0x28, 1, 2]);
  await s.put('BIN', bytes);
  t.same(open(keyring, secretRecord(s.view.state, 'BIN')!.sealed, secretAad('BIN')), bytes);
});

t.test('a ciphertext moved to another name, or tampered with, does not open', async (t) => {
  const keyring = ring('k1', ['k1', 1]);
  const s = await store(t, keyring);
  await s.put('A_SECRET', 'value-of-a');
  const sealed = secretRecord(s.view.state, 'A_SECRET')!.sealed;
  t.throws(() => open(keyring, sealed, secretAad('B_SECRET')), /does not open/);
  const raw = Buffer.from(sealed.slice('enc:v1:k1:'.length), 'base64');
  raw[14] = raw[14]! ^ 1;
  t.throws(
    () => open(keyring, `enc:v1:k1:${raw.toString('base64')}`, secretAad('A_SECRET')),
    /does not open/,
  );
  // The resolver answers nothing for such a record, and the environment takes over.
  const moved = { ...secretRecord(s.view.state, 'A_SECRET')!, name: 'B_SECRET' };
  await s.bucket.put('B_SECRET', enc.encode(JSON.stringify(moved)));
  await s.view.until((st) => secretRecord(st, 'B_SECRET') !== null, 30_000);
  const unreadable: string[] = [];
  const resolve = secretsThenEnv(
    storeResolver(
      () => s.view.state,
      keyring,
      (n) => unreadable.push(n),
    ),
    { B_SECRET: 'from-env' },
  );
  t.equal(resolve('B_SECRET'), 'from-env');
  t.same(unreadable, ['B_SECRET']);
});

t.test('references resolve from the store first, then the environment, else empty', async (t) => {
  const keyring = ring('k1', ['k1', 1]);
  const s = await store(t, keyring);
  await s.put('BOTH', 'from-store');
  await s.put('STORE_ONLY', 'only-store');
  const resolve = secretsThenEnv(
    storeResolver(() => s.view.state, keyring),
    { BOTH: 'from-env', ENV_ONLY: 'only-env' },
  );
  t.equal(
    substituteRefs('${BOTH}|${STORE_ONLY}|${ENV_ONLY}|${NOWHERE}|$BOTH', resolve),
    'from-store|only-store|only-env||$BOTH',
  );
  const withoutKeyring = secretsThenEnv(
    storeResolver(() => s.view.state, null),
    { BOTH: 'from-env' },
  );
  t.equal(withoutKeyring('BOTH'), 'from-env', 'without a keyring the store is not asked');
});

t.test('delete answers whether something was removed, and the read model follows', async (t) => {
  const s = await store(t, ring('k1', ['k1', 1]));
  await s.put('GONE', 'x');
  t.match(await s.send('delete', { name: 'GONE', actor }), { outcome: 'ok', removed: true });
  await s.view.until((st) => secretRecord(st, 'GONE') === null, 30_000);
  t.equal(secretRecord(s.view.state, 'GONE'), null);
  t.match(await s.send('delete', { name: 'GONE', actor }), { outcome: 'ok', removed: false });
});

t.test('without a keyring puts and rekeys are refused with no_keyring', async (t) => {
  const s = await store(t, null);
  t.match(await s.put('X', 'v'), { outcome: 'refused', error: 'no_keyring' });
  t.match(await s.send('rekey', { actor }), { outcome: 'refused', error: 'no_keyring' });
  t.equal(await s.bucket.get('X'), null);
});

t.test('a malformed command or a name outside the grammar is refused and stores nothing', async (t) => {
  const s = await store(t, ring('k1', ['k1', 1]));
  t.match(await s.put('1BAD', 'v'), { outcome: 'refused', error: 'invalid_name' });
  t.match(await s.put('BAD-NAME', 'v'), { outcome: 'refused', error: 'invalid_name' });
  t.match(await s.send('put', { name: 'OK' }), { outcome: 'refused', error: 'invalid_body' });
  t.same(await s.bucket.keys(), []);
});

t.test('rekey re-seals records under other keys and names them; naming another key is refused', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const { secrets: bucket } = await ensureCatalogue(bus);
  const oldHost = startSecretsHost({ bus, bucket, keyring: ring('k1', ['k1', 1]), logger });
  const put = (name: string, value: string) =>
    bus.request(
      Commands.secrets.put.subject,
      enc.encode(
        JSON.stringify({ name, value_b64: Buffer.from(value).toString('base64'), source: 'cli', actor }),
      ),
      { timeoutMs: 5000 },
    );
  await put('OLD_ONE', 'v1');
  await put('OLD_TWO', 'v2');
  await oldHost.stop();
  const keyring = ring('k2', ['k1', 1], ['k2', 2]);
  const host = startSecretsHost({ bus, bucket, keyring, logger });
  t.teardown(() => host.stop());
  await put('NEW_ONE', 'v3');
  const rekey = async (body: unknown) =>
    SecretReply.parse(
      JSON.parse(
        dec.decode(
          (
            await bus.request(Commands.secrets.rekey.subject, enc.encode(JSON.stringify(body)), {
              timeoutMs: 5000,
            })
          ).data,
        ),
      ),
    );
  t.match(await rekey({ key_id: 'k1', actor }), { outcome: 'refused', error: 'key_not_active' });
  t.match(await rekey({ key_id: 'k2', actor }), {
    outcome: 'ok',
    moved: ['OLD_ONE', 'OLD_TWO'],
    unreadable: [],
    key_id: 'k2',
  });
  t.match(await rekey({ actor }), { outcome: 'ok', moved: [] }, 'a second rekey moves nothing');
  const view = await followSecrets({ bucket, logger });
  t.teardown(() => view.stop());
  const onlyK2 = ring('k2', ['k2', 2]);
  for (const [name, value] of [
    ['OLD_ONE', 'v1'],
    ['OLD_TWO', 'v2'],
    ['NEW_ONE', 'v3'],
  ] as const) {
    const record = secretRecord(view.state, name)!;
    t.equal(record.key_id, 'k2');
    t.equal(record.source, 'cli', 'metadata other than key_id is kept');
    t.equal(
      open(onlyK2, record.sealed, secretAad(name)).toString(),
      value,
      `${name} opens without the old key`,
    );
  }
});

t.test('rekey names records sealed under a key this node lacks and leaves them as they are', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const { secrets: bucket } = await ensureCatalogue(bus);
  const first = startSecretsHost({ bus, bucket, keyring: ring('k1', ['k1', 1]), logger });
  await bus.request(
    Commands.secrets.put.subject,
    enc.encode(JSON.stringify({ name: 'LOST', value_b64: 'dg==', source: 'api', actor })),
    { timeoutMs: 5000 },
  );
  await first.stop();
  const host = startSecretsHost({ bus, bucket, keyring: ring('k3', ['k3', 3]), logger });
  t.teardown(() => host.stop());
  const reply = SecretReply.parse(
    JSON.parse(
      dec.decode(
        (
          await bus.request(Commands.secrets.rekey.subject, enc.encode(JSON.stringify({ actor })), {
            timeoutMs: 5000,
          })
        ).data,
      ),
    ),
  );
  t.match(reply, { outcome: 'ok', moved: [], unreadable: ['LOST'] });
  t.match(dec.decode((await bucket.get('LOST'))!.value), /enc:v1:k1:/);
});

t.test('a put or delete with if_revision writes only over that revision; a later write stands', async (t) => {
  const keyring = ring('k1', ['k1', 1]);
  const s = await store(t, keyring);
  const opened = (name: string) =>
    open(keyring, secretRecord(s.view.state, name)!.sealed, secretAad(name)).toString();
  const mine = await s.put('CAS_TOKEN', 'mine');
  const at = mine.outcome === 'ok' ? mine.revision : 0;
  const back = {
    name: 'CAS_TOKEN',
    value_b64: Buffer.from('before').toString('base64'),
    source: 'setup',
    actor,
  };
  t.match(await s.send('put', { ...back, if_revision: at }), {
    outcome: 'ok',
    secret: { name: 'CAS_TOKEN' },
  });
  t.equal(opened('CAS_TOKEN'), 'before', 'over its own revision it writes');

  const again = await s.put('CAS_TOKEN', 'mine-again');
  const ours = again.outcome === 'ok' ? again.revision : 0;
  await s.put('CAS_TOKEN', 'theirs');
  t.match(await s.send('put', { ...back, if_revision: ours }), { outcome: 'ok', superseded: true });
  t.match(await s.send('delete', { name: 'CAS_TOKEN', actor, if_revision: ours }), {
    outcome: 'ok',
    removed: false,
    superseded: true,
  });
  t.equal(opened('CAS_TOKEN'), 'theirs', 'a later write is kept by both');

  const last = await s.put('CAS_TOKEN', 'last');
  t.match(
    await s.send('delete', {
      name: 'CAS_TOKEN',
      actor,
      if_revision: last.outcome === 'ok' ? last.revision : 0,
    }),
    { outcome: 'ok', removed: true },
  );
  t.equal(secretRecord(s.view.state, 'CAS_TOKEN'), null, 'over its own revision it removes');
});

t.test(
  'a rekey racing a write under an older key re-seals the newer record too (a node not yet restarted writes under the old key)',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const { secrets: bucket } = await ensureCatalogue(bus);
    const old = ring('k1', ['k1', 1]);
    // What a node still on the old key stores for a put (secrets.decide.ts).
    const oldRecord = (value: string) =>
      enc.encode(
        JSON.stringify(
          decidePut(
            { name: 'RACED', value_b64: Buffer.from(value).toString('base64'), source: 'api', actor },
            old,
            new Date(),
          ),
        ),
      );
    await bucket.put('RACED', oldRecord('first'));
    // Between the rekey's read of RACED and its compare-and-set, the old-key node writes a new value.
    let raced = false;
    const racing = Object.create(bucket) as typeof bucket;
    racing.update = async (key, value, expected) => {
      if (key === 'RACED' && !raced) {
        raced = true;
        await bucket.put('RACED', oldRecord('second'));
      }
      return bucket.update(key, value, expected);
    };
    const host = startSecretsHost({ bus, bucket: racing, keyring: ring('k2', ['k1', 1], ['k2', 2]), logger });
    t.teardown(() => host.stop());
    const reply = SecretReply.parse(
      JSON.parse(
        dec.decode(
          (
            await bus.request(Commands.secrets.rekey.subject, enc.encode(JSON.stringify({ actor })), {
              timeoutMs: 5000,
            })
          ).data,
        ),
      ),
    );
    t.ok(raced, 'the write landed between read and compare-and-set');
    t.match(reply, { outcome: 'ok', moved: ['RACED'], unreadable: [] });
    const record = JSON.parse(dec.decode((await bucket.get('RACED'))!.value)) as {
      key_id: string;
      sealed: string;
    };
    t.equal(record.key_id, 'k2', 'the newer record is under the active key');
    t.equal(open(ring('k2', ['k2', 2]), record.sealed, secretAad('RACED')).toString(), 'second');
  },
);
