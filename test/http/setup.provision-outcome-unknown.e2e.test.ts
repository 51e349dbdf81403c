/**
 * A provision whose seat-token revision was sent but not acknowledged (the config store lost its server
 * before or after the record landed) answers a coded 503 `outcome_unknown` naming the revision it tried,
 * the run, and the seats whose tokens may not be stored, never an answer without them. The tokens stay
 * sealed: the revision may have landed and reference them. A seat token's seal the secret store did not
 * acknowledge is answered the same way, naming the run, the seats and the secret that may hold the token;
 * no revision was sent then, so the tokens sealed before it are put back. One unanswered but read landed
 * counts as sealed. The bus is real (memory engine); only its publish of the revision record, or the
 * store's answer to one seal, fails, as a lost server does.
 */
import t, { type Test } from 'tap';
import { NoRespondersError, RequestTimeoutError } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { Commands } from '../../schema/index.js';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { flakyRevisionStore, hookedBus } from './fixtures/hooked-bus.js';
import { KEYRING, mintingCodehostB, startSetupNode, type SetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const CB_TOKEN = 'cb-owner-token-0123456789';

/** Provisions codehost-b, expecting the 503 (`Retry-After: 5`) its outcome being unknown answers. */
async function provisionUnknown(t: Test, node: SetupNode): Promise<{ text: string; body: Json }> {
  const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
  const text = await res.text();
  t.equal(res.status, 503, text);
  t.equal(res.headers.get('retry-after'), '5');
  return { text, body: JSON.parse(text) as Json };
}

for (const mode of ['before', 'after'] as const) {
  t.test(
    `a provision whose seat-token revision fails ${mode} it lands answers outcome_unknown naming the tokens`,
    async (t) => {
      const vendor = await fakeCodehostB(t, CB_TOKEN);
      const inner = await openMemoryBus({});
      t.teardown(() => inner.close());
      const flaky = flakyRevisionStore(inner, mode);
      const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN }, bus: flaky.bus });
      await node.putDocument(mintingCodehostB(vendor.url));

      flaky.fail(true);
      const { text, body } = await provisionUnknown(t, node);
      t.match(body, {
        error: 'outcome_unknown',
        revision_id: /^[0-9a-f-]{36}$/,
        run_id: String,
        unstored_seat_tokens: ['chief-agent', 'bo-agent'],
        detail: /chief-agent, bo-agent .*may or may not/,
        hint: /GET \/config\/revisions\/.*revoke the codehost-b tokens minted for chief-agent, bo-agent/i,
      });
      t.equal(vendor.tokens.length, 2, 'both were minted at the vendor');
      for (const k of vendor.tokens) t.notMatch(text + node.rawLogs(), String(k['token']), 'no minted value');
      t.match(
        node.rawLogs(),
        /"event":"setup_seat_tokens_outcome_unknown".*"seats":\["chief-agent","bo-agent"\]/,
      );
      for (const name of ['SVC_CODEHOST_B_CHIEF_AGENT_TOKEN', 'SVC_CODEHOST_B_BO_AGENT_TOKEN'])
        t.type(node.secrets.resolve(name), 'string', `${name} stays sealed: the revision may reference it`);

      flaky.fail(false);
      const tried = await node.call('GET', `/config/revisions/${String(body['revision_id'])}`);
      t.equal(tried.status, mode === 'after' ? 200 : 404, 'the id named is the one the write stored under');
    },
  );
}

const CHIEF = 'SVC_CODEHOST_B_CHIEF_AGENT_TOKEN';
const BO = 'SVC_CODEHOST_B_BO_AGENT_TOKEN';

for (const mode of ['lost', 'late'] as const) {
  t.test(
    `a provision whose seat token's seal is ${mode === 'lost' ? 'lost' : 'unacknowledged and lands late'} answers outcome_unknown naming the run, the seats and the secret`,
    async (t) => {
      const vendor = await fakeCodehostB(t, CB_TOKEN);
      const inner = await openMemoryBus({});
      t.teardown(() => inner.close());
      // From `puts = 0` on, the store's second put (bo-agent's token) is unanswered: lost, or landing later.
      let puts = -1;
      let late: (() => Promise<unknown>) | null = null;
      const bus = hookedBus(inner, {
        request(subject, forward) {
          if (puts < 0 || subject !== Commands.secrets.put.subject || ++puts !== 2) return forward();
          if (mode === 'late') late = forward;
          return Promise.reject(new NoRespondersError(`no responders on ${subject}`));
        },
      });
      const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN }, bus });
      const first = await node.putDocument(mintingCodehostB(vendor.url));
      // A value under the chief seat's name that no seat references: the provision replaces it, then puts it back.
      t.equal((await node.call('PUT', `/secrets/${CHIEF}`, { body: 'earlier-chief-value' })).status, 200);

      puts = 0;
      const { text, body } = await provisionUnknown(t, node);
      t.match(body, {
        error: 'outcome_unknown',
        run_id: String,
        unstored_seat_tokens: ['chief-agent', 'bo-agent'],
        unacknowledged_secret: BO,
        detail: new RegExp(`${BO} was sent to the secret store but not acknowledged: it may or may not`),
        hint: new RegExp(
          `Revoke the codehost-b tokens minted for chief-agent, bo-agent .*GET /secrets/${BO}`,
        ),
      });
      t.notOk('unrestored_secrets' in body, 'what was sealed is put back');
      t.equal(vendor.tokens.length, 2, 'both were minted at the vendor');
      t.notMatch(text + node.rawLogs(), /earlier-chief-value/, 'no stored value');
      t.equal(node.secrets.resolve(CHIEF), 'earlier-chief-value', 'the replaced value is put back');
      t.equal(node.secrets.resolve(BO), undefined, 'the unanswered seal had not landed');
      const state = (await (await node.call('GET', '/setup/integrations')).json()) as Json;
      t.equal(state['revision_id'], first, 'no revision was stored');
      t.match(
        node.rawLogs(),
        new RegExp(
          `"event":"setup_seat_tokens_not_stored".*"seats":\\["chief-agent","bo-agent"\\].*"unacknowledged":"${BO}"`,
        ),
      );
      const run = await node.call('GET', `/setup/integrations/codehost-b/runs/${String(body['run_id'])}`);
      t.equal(run.status, 200, 'the run named is recorded');
      if (late !== null) {
        await (late as () => Promise<unknown>)();
        await node.secrets.view.until((s) => s.entries.get(BO)?.record != null, 30_000);
        const minted = vendor.tokens.map((k) => String(k['token']));
        t.ok(
          minted.includes(String(node.secrets.resolve(BO))),
          'the late seal holds the token, unreferenced',
        );
      }
      for (const k of vendor.tokens) t.notMatch(text + node.rawLogs(), String(k['token']), 'no minted value');
    },
  );
}

t.test(
  "a provision whose seat token's seal lands without an answer counts it sealed and stores the revision",
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const inner = await openMemoryBus({});
    t.teardown(() => inner.close());
    let puts = -1;
    const bus = hookedBus(inner, {
      async request(subject, forward) {
        if (puts < 0 || subject !== Commands.secrets.put.subject || ++puts !== 2) return forward();
        await forward();
        // This node reads the seal landed; its answer is lost.
        await node.secrets.view.until((s) => s.entries.get(BO)?.record != null, 30_000);
        throw new RequestTimeoutError(`request to ${subject} timed out`);
      },
    });
    const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN }, bus });
    await node.putDocument(mintingCodehostB(vendor.url));

    puts = 0;
    const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
    const text = await res.text();
    t.equal(res.status, 200, text);
    t.match(JSON.parse(text), { status: 'succeeded', revision_id: String });
    const minted = vendor.tokens.map((k) => String(k['token']));
    for (const name of [CHIEF, BO])
      t.ok(minted.includes(String(node.secrets.resolve(name))), `${name} sealed`);
    const active = JSON.stringify(await (await node.call('GET', '/config')).json());
    for (const name of [CHIEF, BO]) t.match(active, `\${${name}}`, `a seat references ${name}`);
    for (const value of minted) t.notMatch(text + node.rawLogs(), value, 'no minted value');
  },
);
