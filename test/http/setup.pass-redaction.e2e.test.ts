// A pass's run (its reason, its steps, the log line) is a setup answer: it never shows what a reference
// field resolves to where a read withholds it (spec: setup routes never return a credential) — a value
// from the secret store spliced into a vendor path is named by its `${VAR}` instead.
import t from 'tap';
import { closedPort } from './fixtures/fake-vendors.js';
import { company, KEYRING, startSetupNode } from './fixtures/setup-node.js';

const STORED = 'ws-canary-7f3a9c51';

t.test('a run names a stored reference by its variable, never by the value it resolves to', async (t) => {
  const node = await startSetupNode(t, { tierA: KEYRING });
  t.equal((await node.call('PUT', '/secrets/WS_REF', { body: STORED })).status, 200);
  const url = `http://127.0.0.1:${await closedPort()}`;
  await node.putDocument(
    company({
      integrations: {
        tracker_b: { enabled: true, url, workspace: '${WS_REF}', token: 'tb-token-0123456789' },
      },
    }),
  );
  const answers: string[] = [];
  for (const mode of ['check', 'provision'] as const) {
    const res = await node.call('POST', `/setup/integrations/tracker-b/${mode}`);
    t.equal(res.status, 200, mode);
    const text = await res.text();
    answers.push(text);
    t.match(JSON.parse(text), {
      status: 'failed',
      reason: /tracker-b GET \/api\/v1\/workspaces\/\$\{WS_REF\}\/projects\/: tracker-b is unreachable/,
    });
  }
  answers.push(await (await node.call('GET', '/setup/integrations/tracker-b/runs')).text());
  answers.push(await (await node.call('GET', '/setup/integrations/tracker-b')).text());
  for (const text of answers) t.notMatch(text, STORED, 'no answer carries the stored value');
  t.notMatch(node.rawLogs(), STORED, 'nor does a log line');
});
