/**
 * A redaction marker (`{encrypted: true, key_id: null}`, what a read shows in place of a secret) stands only
 * for a secret (write rule 7). Sent in a field that is not one, it is a `shape` problem at that field's path,
 * on an entity PUT and a full PUT as on a PATCH: it was swapped for the stored value in silence there, or,
 * with nothing stored, refused as "no stored value to keep for this secret". Against a built `svc serve`.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
interface Problem {
  path: string;
  kind: string;
  message: string;
}

const marker = { encrypted: true, key_id: null };

const company = {
  name: 'Acme',
  providers: {
    llm: { main: { type: 'anthropic', model: 'claude-sonnet-4-5', api_keys: ['sk-live-secret-value'] } },
  },
  roles: [{ name: 'Bo Agent', goal: 'Keep the platform up.' }],
};

t.test('a redaction marker in a field that is not a secret is a shape problem at that field', async (t) => {
  const node = await startNode(t);
  const send = async (method: string, path: string, body: Json): Promise<{ status: number; json: Json }> => {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        'x-summary': 'marker',
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const problemsOf = (json: Json) => (json['problems'] as Problem[] | undefined) ?? [];
  t.equal((await send('PUT', '/config', company)).status, 201);

  const cases: Array<[string, string, Json, string]> = [
    ['PATCH', '/config', { providers: { llm: { main: { model: marker } } } }, 'providers.llm.main.model'],
    [
      'PUT',
      '/config/llm-providers/main',
      { type: 'anthropic', model: marker, api_keys: [marker] },
      'providers.llm.main.model',
    ],
    ['PUT', '/config/roles/bo-agent', { name: 'Bo Agent', goal: marker }, 'roles[0].goal'],
    // Nothing stored behind it: still the field's shape, never "this secret".
    ['PUT', '/config/roles/bo-agent', { name: 'Bo Agent', backstory: marker }, 'roles[0].backstory'],
    ['PUT', '/config', { ...company, roles: [{ name: 'Bo Agent', goal: marker }] }, 'roles[0].goal'],
  ];
  for (const [method, path, body, at] of cases) {
    const res = await send(method, path, body);
    const label = `${method} ${path} ${at}`;
    t.equal(res.status, 400, label);
    t.equal(res.json['error'], 'validation_error', label);
    t.same(
      problemsOf(res.json).map((p) => [p.path, p.kind]),
      [[at, 'shape']],
      label,
    );
    t.notMatch(problemsOf(res.json)[0]?.message ?? '', /secret/, label);
  }
  const seat = await fetch(`${node.url}/config/roles/bo-agent`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  t.equal(((await seat.json()) as Json)['goal'], 'Keep the platform up.', 'nothing stored');

  // A marker for a secret is still kept from the stored value, or refused as missing when nothing is stored.
  const kept = await send('PUT', '/config/llm-providers/main', {
    type: 'anthropic',
    model: 'claude-opus-4-1',
    api_keys: [marker],
  });
  t.equal(kept.status, 201);
  const noSecret = await send('PUT', '/config/roles/bo-agent', {
    name: 'Bo Agent',
    mcp_env: { docs: { API_TOKEN: marker } },
  });
  t.equal(noSecret.status, 400);
  t.same(
    problemsOf(noSecret.json).map((p) => [p.path, p.kind]),
    [['roles[0].mcp_env.docs.API_TOKEN', 'missing']],
  );
  t.match(problemsOf(noSecret.json)[0]?.message ?? '', /for this secret/);
});

t.test(
  'a PATCH sending back a secret’s redaction marker keeps the stored secret, as a PUT does',
  async (t) => {
    const node = await startNode(t);
    const send = async (
      method: string,
      path: string,
      body?: Json,
    ): Promise<{ status: number; json: Json }> => {
      const res = await fetch(`${node.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
          'x-summary': 'marker',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Json };
    };
    const withTracker = {
      ...company,
      integrations: { tracker_a: { url: 'https://jira.example', token: 'tracker-secret-value' } },
    };
    t.equal((await send('PUT', '/config', withTracker)).status, 201);
    const read = await send('GET', '/config');
    const tracker = (read.json['integrations'] as Json)['tracker_a'] as Json;
    t.same(tracker['token'], marker, 'the read masks the token');

    // The block as read, edited and sent back: the marker stands for the stored token.
    const patched = await send('PATCH', '/config', {
      integrations: { tracker_a: { ...tracker, url: 'https://jira2.example' } },
    });
    t.equal(patched.status, 201, JSON.stringify(patched.json));
    const after = ((await send('GET', '/config')).json['integrations'] as Json)['tracker_a'] as Json;
    t.same(after, { url: 'https://jira2.example', token: marker }, 'the token kept, the url changed');

    // Nothing stored behind a secret's marker: refused as a PUT refuses it, never as the field's shape.
    const hook = { type: 'webhook', url: 'https://hooks.example/in', secret: marker };
    const put = await send('PUT', '/config', { ...withTracker, notification_transports: { hook } });
    const patch = await send('PATCH', '/config', { notification_transports: { hook } });
    for (const [label, res] of [
      ['PUT', put],
      ['PATCH', patch],
    ] as const) {
      t.equal(res.status, 400, label);
      const problems = (res.json['problems'] as Problem[] | undefined) ?? [];
      t.same(
        problems.map((p) => [p.path, p.kind]),
        [['notification_transports.hook.secret', 'missing']],
        label,
      );
      t.match(problems[0]?.message ?? '', /for this secret/, label);
    }
    t.equal(patch.json['error'], 'invalid_patch');
  },
);
