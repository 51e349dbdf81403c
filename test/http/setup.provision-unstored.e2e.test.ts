import t from 'tap';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { KEYRING, mintingCodehostB, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const CB_TOKEN = 'cb-owner-token-0123456789';
const CHIEF = 'SVC_CODEHOST_B_CHIEF_AGENT_TOKEN';
const BO = 'SVC_CODEHOST_B_BO_AGENT_TOKEN';

t.test(
  'a provision whose seat-token revision loses to a revision stored during the pass keeps nothing sealed and names the minted tokens',
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN } });
    const doc = (name: string): Json => mintingCodehostB(vendor.url, name);
    await node.putDocument(doc('Acme'));
    // A value under the chief seat's name that no seat references: the provision replaces it, then puts it back.
    t.equal((await node.call('PUT', `/secrets/${CHIEF}`, { body: 'earlier-chief-value' })).status, 200);
    let concurrent = '';
    vendor.beforeAnswer = async (seen) => {
      if (seen.method === 'POST' && seen.path.endsWith('/access_tokens') && concurrent === '')
        concurrent = await node.putDocument(doc('Acme Two'));
    };

    const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
    const text = await res.text();
    t.equal(res.status, 409, text);
    const body = JSON.parse(text) as Json;
    t.match(body, {
      error: 'revision_advanced',
      unstored_seat_tokens: ['chief-agent', 'bo-agent'],
      stored_revision_id: String,
      run_id: String,
      detail: /minted for chief-agent, bo-agent were not stored/,
      hint: /Revoke the codehost-b tokens minted for chief-agent, bo-agent at the vendor/,
    });
    t.equal(vendor.tokens.length, 2, 'both were minted at the vendor');
    for (const k of vendor.tokens) {
      t.notMatch(text, String(k['token']), 'no minted value in the answer');
      t.notMatch(node.rawLogs(), String(k['token']), 'no minted value in a log line');
    }
    t.equal(node.secrets.resolve(CHIEF), 'earlier-chief-value', 'the replaced value is put back');
    t.equal(node.secrets.resolve(BO), undefined, 'the new one is removed');
    const state = (await (await node.call('GET', '/setup/integrations')).json()) as Json;
    t.equal(state['revision_id'], concurrent, 'the concurrent revision stays active');
    const active = (await (await node.call('GET', '/config')).json()) as Json;
    t.equal(active['name'], 'Acme Two');
    t.notMatch(JSON.stringify(active), /SVC_CODEHOST_B_\w+_AGENT_TOKEN/, 'no seat references a token');
    t.match(
      node.rawLogs(),
      /"event":"setup_seat_tokens_not_stored".*"seats":\["chief-agent","bo-agent"\]/,
      'the log names the seats whose tokens to revoke',
    );
    const run = (await (
      await node.call('GET', `/setup/integrations/codehost-b/runs/${String(body['run_id'])}`)
    ).json()) as Json;
    t.match(
      run['steps'],
      [{}, { name: 'token chief-agent', detail: /svc-chief-agent minted/ }],
      'the run names them',
    );
  },
);

t.test(
  'a provision whose seat tokens the store cannot seal stores no revision, keeps nothing and names the minted tokens',
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    // The setup routes hold a keyring (so tokens are minted); the node answering the store holds none.
    const node = await startSetupNode(t, { tierA: KEYRING, storeTierA: '', env: { CB_TOKEN } });
    const first = await node.putDocument(mintingCodehostB(vendor.url));
    const res = await node.call('POST', '/setup/integrations/codehost-b/provision');
    const text = await res.text();
    t.equal(res.status, 503, text);
    t.match(JSON.parse(text), {
      error: 'no_keyring',
      unstored_seat_tokens: ['chief-agent', 'bo-agent'],
      run_id: String,
    });
    t.equal(vendor.tokens.length, 2);
    for (const k of vendor.tokens) t.notMatch(text + node.rawLogs(), String(k['token']));
    t.same(
      [...node.secrets.view.state.entries].filter(([, e]) => e.record).map(([name]) => name),
      [],
      'nothing sealed',
    );
    const state = (await (await node.call('GET', '/setup/integrations')).json()) as Json;
    t.equal(state['revision_id'], first, 'no revision stored');
  },
);
