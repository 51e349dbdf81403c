/**
 * A redaction marker (`{encrypted: true, key_id: ...}`) stands only for a secret (write rule 7). Inside a map
 * whose keys and values the schema leaves free (an extension's settings, a transport of a type this build does
 * not send, a seat's sandbox beyond its typed keys) nothing refused it as a shape: it was stored as a literal
 * object and read back looking like a secret no one had set. Refused as a `shape` problem at its path on a
 * PUT, an entity PUT and a PATCH, nothing stored. Against a built `svc serve`.
 */
import t from 'tap';
import { call } from '../harness/api.js';
import { startNode } from '../harness/serve-node.js';

interface Problem {
  path: string;
  kind: string;
  message: string;
}

const marker = { encrypted: true, key_id: null };
const keyed = { encrypted: true, key_id: 'k1' };

const company = {
  name: 'Acme',
  roles: [{ name: 'Bo Agent', goal: 'Keep the platform up.', sandbox: { default_coding_agent: 'codex' } }],
  extensions: { search: { index: 'docs' } },
};

t.test('a redaction marker inside a free settings map is a shape problem at its path', async (t) => {
  const node = await startNode(t);
  t.equal((await call(node.url, 'PUT', '/config', company)).status, 201);

  const cases: Array<[string, string, unknown, string, string]> = [
    [
      'PUT',
      '/config',
      { ...company, extensions: { search: { index: 'docs', api_token: marker } } },
      'extensions.search.api_token',
      'validation_error',
    ],
    [
      'PUT',
      '/config',
      { ...company, extensions: { search: { index: 'docs', hosts: ['a', keyed] } } },
      'extensions.search.hosts[1]',
      'validation_error',
    ],
    [
      'PATCH',
      '/config',
      { extensions: { search: { auth: { bearer: keyed } } } },
      'extensions.search.auth.bearer',
      'validation_error',
    ],
    [
      'PATCH',
      '/config',
      { notification_transports: { pigeon: { type: 'carrier-pigeon', loft: marker } } },
      'notification_transports.pigeon.loft',
      'validation_error',
    ],
    [
      'PUT',
      '/config/roles/bo-agent',
      { name: 'Bo Agent', sandbox: { default_coding_agent: 'codex', image_token: marker } },
      'roles[0].sandbox.image_token',
      'validation_error',
    ],
  ];
  for (const [method, path, body, at, error] of cases) {
    const res = await call(node.url, method, path, body);
    const label = `${method} ${path} ${at}`;
    t.equal(res.status, 400, label);
    t.equal(res.body['error'], error, label);
    const problems = (res.body['problems'] as Problem[] | undefined) ?? [];
    t.same(
      problems.map((p) => [p.path, p.kind]),
      [[at, 'shape']],
      label,
    );
    t.match(problems[0]?.message ?? '', /redaction marker/, label);
  }

  const read = await call(node.url, 'GET', '/config');
  t.same(read.body['extensions'], { search: { index: 'docs' } }, 'nothing stored');
  t.notOk(read.body['notification_transports'], 'nothing stored');

  // A value that only looks alike (a third key, or encrypted false) is free JSON as before.
  const alike = await call(node.url, 'PATCH', '/config', {
    extensions: { search: { cache: { encrypted: false, key_id: null }, box: { ...marker, note: 'x' } } },
  });
  t.equal(alike.status, 201, JSON.stringify(alike.body));
});
