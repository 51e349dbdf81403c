import t from 'tap';
import { until } from '../harness/until.js';
import { fakeCodehostB, fakeTrackerB, type Seen } from './fixtures/fake-vendors.js';
import { company, json, KEYRING, startSetupNode, type Json } from './fixtures/setup-node.js';

const PUBLIC = 'https://hooks.example.test';
const CB_TOKEN = 'cb-owner-token-0123456789';
const TB_TOKEN = 'tb-admin-token-0123456789';

/** codehost-b managing a project, a token per agent seat and the group webhook. */
const managed = (url: string): Json =>
  company({
    integrations: {
      codehost_b: {
        url,
        token: '${CB_TOKEN}',
        signing_secret: 'cb-signing-secret',
        provisioning: { group: 'acme', projects: ['web'], token_scopes: ['api'], group_webhook: true },
      },
    },
  });

/** Holds the vendor's answers to the first pass until `release` is called. */
function gate(): { wait: (seen: Seen) => Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { wait: () => held, release };
}

t.test(
  'two provisions of one kind at once run one after the other: one webhook, one token per seat, both answered',
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { SVC_PUBLIC_BASE_URL: PUBLIC, CB_TOKEN } });
    await node.putDocument(managed(vendor.url));
    const held = gate();
    vendor.beforeAnswer = held.wait;
    const first = node.call('POST', '/setup/integrations/codehost-b/provision');
    await until(
      async () => vendor.seen.length,
      (n) => n === 1,
    );
    const second = node.call('POST', '/setup/integrations/codehost-b/provision');
    // Either the second pass reaches the vendor beside the first, or the node says it waits for it.
    await until(
      async () => ({ vendor: vendor.seen.length, logs: node.rawLogs() }),
      (s) => s.vendor > 1 || s.logs.includes('"event":"setup_pass_queued"'),
    );
    vendor.beforeAnswer = null;
    held.release();
    const answers = await Promise.all([first, second]);
    t.same(
      answers.map((a) => a.status),
      [200, 200],
      'neither operator is refused',
    );
    const [a, b] = (await Promise.all(answers.map(json))) as [Json, Json & { steps?: Json[] }];
    t.match(a, { status: 'succeeded' });
    t.match(b, { status: 'succeeded', revision_id: null });
    t.ok(b.steps?.every((s) => s['outcome'] === 'ok') === true, 'the second pass finds what the first made');
    t.equal(vendor.hooks.length, 1, 'one group webhook, so each event is delivered once');
    t.equal(vendor.tokens.length, 2, 'one token per agent seat, none left orphaned at the vendor');
    t.equal(vendor.seen.filter((s) => s.method === 'POST' && s.path === '/api/v4/projects').length, 1);
  },
);

t.test(
  'a vendor failing mid-provision keeps what was done: the token minted before it is stored, the next provision mints only the rest',
  async (t) => {
    const vendor = await fakeTrackerB(t, TB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { SVC_PUBLIC_BASE_URL: PUBLIC, TB_TOKEN } });
    await node.putDocument(
      company({
        integrations: {
          tracker_b: {
            url: vendor.url,
            workspace: 'acme',
            token: '${TB_TOKEN}',
            webhook_secret: 'tb-webhook-secret',
            provisioning: { projects: ['ENG'], username_prefix: 'agent-', token_expiry_days: 30 },
          },
        },
      }),
    );
    // The vendor goes down as the second seat's token is asked for.
    vendor.beforeAnswer = async (seen) => {
      if (seen.path.endsWith('/members/agent-bo-agent/api-tokens/')) vendor.failWith = 503;
      await Promise.resolve();
    };
    const res = await node.call('POST', '/setup/integrations/tracker-b/provision');
    t.equal(res.status, 200, 'a failed pass is still answered with its run');
    const run = (await json(res)) as Json & { steps: Json[] };
    t.match(run, { status: 'failed', reason: /api-tokens\/: tracker-b answered 503: the vendor failed/ });
    t.match(
      run.steps.map((s) => [s['name'], s['outcome']]),
      [
        ['project ENG', 'changed'],
        ['member agent-chief-agent', 'changed'],
        ['member agent-bo-agent', 'changed'],
        ['token chief-agent', 'changed'],
        ['stopped', 'failed'],
      ],
      'the steps say what was done before the vendor failed',
    );
    t.ok(run['revision_id'], 'the token minted before the failure is referenced in a new revision');
    t.equal(node.secrets.resolve('SVC_TRACKER_B_CHIEF_AGENT_TOKEN'), vendor.tokens[0]!['token']);
    t.match(await json(await node.call('GET', '/setup/integrations/tracker-b/runs')), {
      runs: [{ id: run['id'], status: 'failed' }],
    });

    vendor.beforeAnswer = null;
    vendor.failWith = null;
    const again = (await json(await node.call('POST', '/setup/integrations/tracker-b/provision'))) as Json & {
      steps: Json[];
    };
    t.match(again, { status: 'succeeded' });
    t.same(
      vendor.tokens.map((k) => k['username']),
      ['agent-chief-agent', 'agent-bo-agent'],
      'one token per seat at the vendor: the first is not minted twice',
    );
    t.same(vendor.members.length, 2);
    t.equal(vendor.hooks.length, 1);
  },
);
