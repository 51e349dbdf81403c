import { pino } from 'pino';
import t from 'tap';
import { startNodeHost } from '../../actors/index.js';
import { ensureCatalogue } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { readRevision } from '../../projections/index.js';
import { parseTierA } from '../../schema/index.js';
import { startConfiguration } from '../../scripts/config-wiring.js';
import { company, startConfigNode } from './fixtures/config-node.js';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const keyring = (active: string, ...ids: Array<[string, number]>) =>
  `secrets: {active_key_id: ${active}, keys: [${ids.map(([id, b]) => `{id: ${id}, material: "${key(b)}"}`).join(', ')}]}`;
type Json = Record<string, unknown>;

t.test('with a keyring every revision is stored sealed, and reads open then redact', async (t) => {
  const node = await startConfigNode(t, { tierA: keyring('k1', ['k1', 1]) });
  const put = await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
  t.equal(put.status, 201);
  const id = ((await put.json()) as Json)['revision_id'] as string;
  const stored = (await readRevision(node.configuration.view.state, id))!.payload as Json;
  t.match(stored, { __encrypted__: /^enc:v1:k1:/ });
  t.notMatch(
    JSON.stringify(stored),
    /Acme|sk-live-secret-value/,
    'nothing of the document is readable at rest',
  );
  const read = (await (await node.call('GET', '/config')).json()) as Json;
  t.equal(read['name'], 'Acme');
  t.notMatch(JSON.stringify(read), /sk-live-secret-value/);
  const patch = await node.call('PATCH', '/config', {
    body: { mission: 'sealed too' },
    headers: { 'x-summary': 'p' },
  });
  t.equal(patch.status, 201);
  t.equal(((await (await node.call('GET', '/config')).json()) as Json)['mission'], 'sealed too');
  t.equal((await node.call('GET', '/config/roles/bo-agent')).status, 200);
  const revision = (await (await node.call('GET', `/config/revisions/${id}`)).json()) as Json;
  t.equal((revision['payload'] as Json)['name'], 'Acme');
});

t.test(
  'a node whose keyring lacks the key of the active revision refuses to boot, naming the key',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const first = await startConfigNode(t, { tierA: keyring('k1', ['k1', 1]), bus });
    t.equal(
      (await first.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } })).status,
      201,
    );
    const logger = pino({ level: 'silent' });
    const catalogue = await ensureCatalogue(bus);
    const parsed = parseTierA(keyring('k2', ['k2', 2]), { env: {}, cwd: '/' });
    if (!parsed.ok) throw new Error('tier A');
    const node = startNodeHost(
      {
        node: 'node-1',
        version: 'test',
        startedAt: new Date().toISOString(),
        queue: 'memory',
        roles: parsed.config.node.roles,
        ingress: true,
        eventHistorySeconds: catalogue.eventHistorySeconds,
        spendHistorySeconds: catalogue.spendHistorySeconds,
      },
      logger,
    );
    await t.rejects(
      startConfiguration({ bus, coord: catalogue.coord, node, config: parsed.config, logger }),
      /sealed under key k1.*add that key to secrets\.keys/,
    );
  },
);

t.test(
  'rotation: with the old key still listed, old revisions open and new ones seal under the new key',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const before = await startConfigNode(t, { tierA: keyring('k1', ['k1', 1]), bus });
    await before.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
    await before.configuration.stop();
    const after = await startConfigNode(t, { tierA: keyring('k2', ['k1', 1], ['k2', 2]), bus });
    t.equal(((await (await after.call('GET', '/config')).json()) as Json)['name'], 'Acme');
    const reload = await after.call('POST', '/config/reload');
    t.equal(reload.status, 201);
    const id = ((await reload.json()) as Json)['revision_id'] as string;
    t.ok(await after.configuration.view.until((s) => s.revisions.has(id), 30_000));
    t.match(
      (await readRevision(after.configuration.view.state, id))!.payload,
      { __encrypted__: /^enc:v1:k2:/ },
      'a reload re-seals under the active key',
    );
  },
);

t.test(
  'a revision that only rotates a sealed secret diffs as one change at its path, markers both sides, no value anywhere',
  async (t) => {
    const node = await startConfigNode(t, { tierA: keyring('k1', ['k1', 1]) });
    const hook = (webhook_secret: string) => ({ integrations: { codehost_a: { webhook_secret } } });
    const write = async (method: 'PUT' | 'PATCH', body: unknown): Promise<string> => {
      const res = await node.call(method, '/config', { body, headers: { 'x-summary': 'hook' } });
      t.equal(res.status, 201, method);
      return ((await res.json()) as Json)['revision_id'] as string;
    };
    const r1 = await write('PUT', { ...company(), ...hook('old-hook-secret-value') });
    const r2 = await write('PATCH', hook('new-hook-secret-value'));
    const marker = { encrypted: true, key_id: null };
    const rotation = { from: r1, to: r2, changes_total: 1 };
    const change = {
      path: 'integrations.codehost_a.webhook_secret',
      kind: 'changed',
      from: marker,
      to: marker,
    };
    const answers = [
      await node.call('GET', `/config/revisions/${r2}/diff?against=${r1}`),
      await node.call('GET', `/query/config_diff?from=${r1}&to=${r2}`),
    ];
    for (const res of answers) {
      t.equal(res.status, 200);
      const text = await res.text();
      t.same(JSON.parse(text), { ...rotation, changes: [change] }, 'one change at the secret path');
      t.notMatch(text, /hook-secret-value/, 'neither value appears in the answer');
    }
    // A `${VAR}` reference is not a secret: a change between two of them shows as written.
    const r3 = await write('PATCH', hook('${HOOK_SECRET_A}'));
    const r4 = await write('PATCH', hook('${HOOK_SECRET_B}'));
    const refs = (await (
      await node.call('GET', `/config/revisions/${r4}/diff?against=${r3}`)
    ).json()) as Json;
    t.same(refs['changes'], [
      { path: change.path, kind: 'changed', from: '${HOOK_SECRET_A}', to: '${HOOK_SECRET_B}' },
    ]);
  },
);

t.test(
  'a diff with a revision sealed under a dropped key answers 409 unreadable_revision naming it, as revert does',
  async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    const before = await startConfigNode(t, { tierA: keyring('k1', ['k1', 1]), bus });
    const put = await before.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
    const old = ((await put.json()) as Json)['revision_id'] as string;
    await before.configuration.stop();
    const rotating = await startConfigNode(t, { tierA: keyring('k2', ['k1', 1], ['k2', 2]), bus });
    const reload = await rotating.call('POST', '/config/reload');
    t.equal(reload.status, 201);
    const id = ((await reload.json()) as Json)['revision_id'] as string;
    t.ok(await rotating.configuration.view.until((s) => s.revisions.has(id), 30_000));
    await rotating.configuration.stop();
    const after = await startConfigNode(t, { tierA: keyring('k2', ['k2', 2]), bus });
    for (const res of [
      await after.call('GET', `/config/revisions/${old}/diff`),
      await after.call('GET', `/query/config_diff?from=${old}&to=active`),
      await after.call('POST', `/config/revisions/${old}/revert`, { headers: { 'x-summary': 'back' } }),
    ]) {
      t.equal(res.status, 409);
      t.match(await res.json(), { error: 'unreadable_revision', detail: new RegExp(old) });
    }
  },
);
