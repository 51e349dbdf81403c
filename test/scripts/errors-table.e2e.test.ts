/**
 * The spec's Errors table asked of a real `svc serve`, row by row: each situation the table names answers
 * the table's status and code, with `detail` and `hint`, and only codes of the catalogue; the work routes'
 * rows on a second node with the native tracker. Rows whose situation needs a slow clock, a signal or
 * another Tier A (unreadable_body, config_managed, draining, unreadable_revision, content_unavailable,
 * the webhook 503) are held by their own route tests.
 */
import t, { type Test } from 'tap';
import { ErrorCode } from '../../schema/errors.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json;
}

async function ask(
  node: ServedNode,
  method: string,
  path: string,
  opts: { body?: string | Json; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<Answer> {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: {
      ...(opts.auth === false ? {} : { authorization: `Bearer ${TOKEN}` }),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    ...(opts.body !== undefined
      ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }
      : {}),
  });
  const text = await res.text();
  let body: Json = {};
  try {
    body = JSON.parse(text) as Json;
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body };
}

/** Asserts an answer carries `code` with `status`, a detail and a hint, and a catalogued code. */
const refusedIn =
  (t: Test) =>
  (a: Answer, status: number, code: string, what: string): void => {
    t.equal(a.status, status, `${what}: status`);
    t.equal(a.body['error'], code, `${what}: code`);
    t.ok(ErrorCode.safeParse(a.body['error']).success, `${what}: a catalogued code`);
    t.type(a.body['detail'], 'string', `${what}: detail`);
    t.type(a.body['hint'], 'string', `${what}: hint`);
  };

const company = { name: 'Acme', roles: [{ name: 'Ada' }] };
const summary = { 'x-summary': 'errors table' };

t.test("every Errors row a served node can meet answers the table's status and code", async (t) => {
  const node = await startNode(t);
  const refused = refusedIn(t);

  // Before the first revision.
  refused(
    await ask(node, 'GET', '/config'),
    404,
    'no_active_revision',
    'config read before the first revision',
  );
  refused(
    await ask(node, 'PATCH', '/config', { body: { mission: 'x' }, headers: summary }),
    409,
    'no_active_revision',
    'PATCH with nothing active',
  );
  refused(
    await ask(node, 'PUT', '/config/roles/ada', { body: { name: 'Ada' }, headers: summary }),
    409,
    'no_active_revision',
    'entity write with nothing active',
  );
  refused(await ask(node, 'POST', '/config/reload'), 409, 'no_active_revision', 'reload with nothing active');
  refused(
    await ask(node, 'PUT', '/config', { body: company, headers: { ...summary, 'if-match': '"r-1"' } }),
    412,
    'no_active_revision',
    'If-Match names a revision while none is active',
  );

  // Document refusals.
  refused(
    await ask(node, 'PUT', '/config', { body: '{"name": ', headers: summary }),
    400,
    'invalid_body',
    'unparseable',
  );
  const invalid = await ask(node, 'PUT', '/config', {
    body: { name: 'Acme', roles: [{ name: 'Ada' }, { name: 'Ada' }] },
    headers: summary,
  });
  refused(invalid, 400, 'validation_error', 'a document breaking a rule');
  t.ok(Array.isArray(invalid.body['problems']), 'validation_error carries problems');
  refused(await ask(node, 'PUT', '/config', { body: company }), 400, 'summary_required', 'no summary');
  refused(
    await ask(node, 'PUT', '/config?dry_run=maybe', { body: company, headers: summary }),
    400,
    'invalid_query',
    'dry_run other than true/false',
  );
  refused(
    await ask(node, 'PUT', '/config', { body: company, headers: summary, auth: false }),
    401,
    'invalid_token',
    'write without a bearer',
  );

  // The first revision.
  const first = await ask(node, 'PUT', '/config', { body: company, headers: summary });
  t.equal(first.status, 201);
  const active = String(first.body['revision_id']);
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 1);

  refused(
    await ask(node, 'PUT', '/config', { body: company, headers: { ...summary, 'if-none-match': '*' } }),
    412,
    'already_configured',
    'If-None-Match: * meets an active revision',
  );
  const stale = await ask(node, 'PUT', '/config', {
    body: { ...company, mission: 'm' },
    headers: { ...summary, 'if-match': '"00000000-0000-4000-8000-000000000000"' },
  });
  refused(stale, 409, 'revision_advanced', 'stale If-Match');
  // The stale write is stored inactive and named; the active revision stays.
  const storedId = String(stale.body['stored_revision_id']);
  const stored = await ask(node, 'GET', `/config/revisions/${storedId}`);
  t.match(stored, { status: 200, body: { revision_id: storedId, is_active: false } });
  t.equal(
    (await ask(node, 'GET', '/config')).headers.get('etag'),
    `"${active}"`,
    'the prior revision serves',
  );
  const patchKey = await ask(node, 'PATCH', '/config', { body: { nonsense: 1 }, headers: summary });
  refused(patchKey, 400, 'invalid_patch', 'a patch naming an unknown key');
  t.ok(Array.isArray(patchKey.body['problems']), 'invalid_patch carries problems');
  const patchType = await ask(node, 'PATCH', '/config', {
    body: '[]',
    headers: { ...summary, 'content-type': 'application/json-patch+json' },
  });
  refused(patchType, 415, 'unsupported_patch_media_type', 'PATCH in another patch format');
  t.equal(patchType.headers.get('accept-patch'), 'application/merge-patch+json');

  // Entity writes.
  refused(
    await ask(node, 'PUT', '/config/roles/ada', { body: { name: 'Ada Renamed' }, headers: summary }),
    400,
    'identity_mismatch',
    'entity body identity differs from the path',
  );
  refused(
    await ask(node, 'PUT', '/config/roles/bea', {
      body: { name: 'Bea' },
      headers: { ...summary, 'if-none-match': '*' },
    }),
    400,
    'not_creatable',
    'create-only write of a seat',
  );
  refused(
    await ask(node, 'PUT', '/config/roles/ada', {
      body: { name: 'Ada' },
      headers: { ...summary, 'if-none-match': '*', 'if-match': `"${active}"` },
    }),
    400,
    'conflicting_preconditions',
    'If-None-Match: * with If-Match on an entity PUT',
  );
  refused(
    await ask(node, 'PUT', '/config/roles/nobody', { body: { name: 'Nobody' }, headers: summary }),
    404,
    'no_such_entity',
    'entity PUT of an id not carried',
  );
  const provider = { type: 'openai', model: 'gpt-4o', api_keys: ['${OPENAI_KEY}'] };
  t.equal(
    (
      await ask(node, 'PUT', '/config/llm-providers/p', {
        body: provider,
        headers: { ...summary, 'if-none-match': '*' },
      })
    ).status,
    201,
  );
  refused(
    await ask(node, 'PUT', '/config/llm-providers/p', {
      body: provider,
      headers: { ...summary, 'if-none-match': '*' },
    }),
    412,
    'entity_exists',
    'create-only entity PUT on an existing id',
  );

  // Reads and routing.
  const missing = '00000000-0000-4000-8000-000000000000';
  refused(await ask(node, 'GET', `/config/revisions/${missing}`), 404, 'not_found', 'revision absent');
  refused(await ask(node, 'GET', `/events/${missing}`), 404, 'not_found', 'event absent');
  refused(await ask(node, 'GET', '/query/no_such_question'), 404, 'unknown_query', 'unregistered question');
  const noRoute = await ask(node, 'GET', '/no/such/path');
  refused(noRoute, 404, 'no_route', 'path not served');
  t.match(noRoute.body['detail'], /GET/, 'no_route names the method');
  const method = await ask(node, 'DELETE', '/config');
  refused(method, 405, 'method_not_allowed', 'path under another method');
  t.match(method.headers.get('allow') ?? '', /GET/, 'with Allow');
  const removal = await ask(node, 'DELETE', '/config/roles/ada');
  refused(removal, 405, 'method_not_allowed', 'an entity DELETE (removal is a full-document edit)');
  t.equal(removal.headers.get('allow'), 'GET, PUT', 'an entity allows GET, PUT');
  refused(
    await ask(node, 'GET', '/work'),
    404,
    'unknown_query',
    '/work* on a node whose tracker is not native',
  );
  const ws = await fetch(`${node.url}/ws/stream`, { headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(ws.status, 426, '/ws/stream without Upgrade and an accepted credential');
  const wsRefused = await fetch(`${node.url}/ws/stream`, { headers: { authorization: 'Bearer wrong' } });
  t.equal(wsRefused.status, 401, '/ws/stream without Upgrade and a refused credential');
  t.equal(((await wsRefused.json()) as Json)['error'], 'invalid_token');

  // Secrets on a node with no keyring.
  refused(
    await ask(node, 'PUT', '/secrets/not-a-name', { body: 'v', headers: { 'content-type': 'text/plain' } }),
    400,
    'invalid_name',
    'secret name outside the grammar',
  );
  refused(
    await ask(node, 'PUT', '/secrets/TRACKER_TOKEN', {
      body: 'v',
      headers: { 'content-type': 'text/plain' },
    }),
    503,
    'no_keyring',
    'seal route with no secrets.keys',
  );
  refused(await ask(node, 'GET', '/secrets/TRACKER_TOKEN'), 404, 'not_found', 'secret absent');
});

t.test("the work routes' Errors rows on a node with the native tracker", async (t) => {
  const node = await startNode(t, 'tracker: {backend: native}');
  const refused = refusedIn(t);
  refused(
    await ask(node, 'GET', '/work/projects?archived=maybe'),
    400,
    'bad_params',
    'invalid archived value',
  );
  refused(await ask(node, 'GET', '/work/projects?sort=size'), 400, 'bad_params', 'invalid sort value');
  refused(
    await ask(node, 'GET', '/work/files?project=NOPE'),
    404,
    'no_project',
    '/work/files of an unknown project',
  );
  refused(
    await ask(node, 'POST', `/work/NOPE-1/purge?op_id=${'a'.repeat(129)}`, {
      body: { confirm: 'NOPE-1', project: 'NOPE', reason: 'errors table' },
    }),
    400,
    'op_id_invalid',
    'retry id over 128 bytes',
  );
  refused(
    await ask(node, 'POST', '/work/NOPE-1/purge?op_id=a%20b', {
      body: { confirm: 'NOPE-1', project: 'NOPE', reason: 'errors table' },
    }),
    400,
    'op_id_invalid',
    'retry id not visible ASCII',
  );
});
