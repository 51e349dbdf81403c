/**
 * Who a provision's seat-token revision and seals are recorded as (spec "Authentication" 5): the caller as
 * the guard saw them, carried to the integration actor in its command — the token's id (`operator`), or
 * `anonymous` (kind `anonymous`) with the guard disabled, as `/config` and `PUT /secrets` record it. An
 * operator's command carries no `actor_kind`, so it is the command an older build reads. Real memory bus,
 * real setup routes and secret store, a local fake code host.
 */
import t from 'tap';
import type { Bus } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { Commands } from '../../schema/index.js';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { openAuth } from './fixtures/gateway-harness.js';
import { KEYRING, mintingCodehostB, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const CB_TOKEN = 'cb-owner-token-0123456789';
const BO = 'SVC_CODEHOST_B_BO_AGENT_TOKEN';

/** The memory bus, keeping the body of every provision command sent over it. */
async function recordingBus(sent: Json[]): Promise<Bus> {
  const inner = await openMemoryBus({});
  t.teardown(() => inner.close());
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'request') {
        const request: Bus['request'] = (subject, data, opts) => {
          if (subject === Commands.integration.provision.subject)
            sent.push(JSON.parse(Buffer.from(data).toString('utf8')) as Json);
          return target.request(subject, data, opts);
        };
        return request;
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

for (const [guard, disabled, by, command] of [
  [
    'disabled',
    true,
    { id: 'anonymous', kind: 'anonymous' },
    { kind: 'codehost-b', actor: 'anonymous', actor_kind: 'anonymous' },
  ],
  ['on', false, { id: 'ops', kind: 'operator' }, { kind: 'codehost-b', actor: 'ops' }],
] as const) {
  t.test(`seat tokens a provision stores are written by its caller (guard ${guard})`, async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const sent: Json[] = [];
    const node = await startSetupNode(t, {
      tierA: KEYRING,
      env: { CB_TOKEN },
      bus: await recordingBus(sent),
      auth: { ...openAuth, disabled },
    });
    await node.putDocument(mintingCodehostB(vendor.url));
    const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
    const run = (await res.json()) as Json;
    t.equal(res.status, 200, 'the provision ran');
    t.same(sent, [command], 'the command names the caller');
    t.equal(run['actor'], by.id, "the run's actor");
    const id = run['revision_id'];
    t.type(id, 'string', 'a revision references the minted tokens');
    const meta = (await (await node.call('GET', `/config/revisions/${String(id)}`)).json()) as Json;
    t.same({ id: meta['created_by'], kind: meta['created_by_kind'] }, by, 'the seat-token revision');
    const secret = (await (await node.call('GET', `/secrets/${BO}`)).json()) as Json;
    t.equal(secret['updated_by'], by.id, 'the sealed token');
  });
}
