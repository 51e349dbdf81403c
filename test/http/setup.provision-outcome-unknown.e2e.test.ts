/**
 * A provision whose seat-token revision was sent but not acknowledged (the config store lost its server
 * before or after the record landed) answers a coded 503 `outcome_unknown` naming the revision it tried,
 * the run, and the seats whose tokens may not be stored, never an answer without them. The tokens stay
 * sealed: the revision may have landed and reference them. The bus is real (memory engine); only its
 * publish of the revision record fails, as a lost server does.
 */
import t from 'tap';
import { openMemoryBus } from '../../bus/memory/index.js';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { flakyRevisionStore } from './fixtures/hooked-bus.js';
import { KEYRING, mintingCodehostB, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const CB_TOKEN = 'cb-owner-token-0123456789';

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
      const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
      const text = await res.text();
      t.equal(res.status, 503, text);
      t.equal(res.headers.get('retry-after'), '5');
      const body = JSON.parse(text) as Json;
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
