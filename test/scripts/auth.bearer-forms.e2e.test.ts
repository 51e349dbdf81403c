/**
 * Spec "Authentication" 1, 2 and 4 for the forms a bearer arrives in, asked of a real `svc serve`: the
 * scheme is matched in any case and may be followed by more than one space (RFC 9110 11.1 and 11.4); any other
 * form (another scheme, the token glued to the scheme, quoted, with a second word, two credentials folded
 * into one header, two headers) is a present credential and refused 401 `invalid_token` even where reads
 * are open; an empty header is no credential; RFC 6750's `?access_token=` authenticates nobody. Every
 * refusal is logged with its route and without the candidate.
 */
import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

async function ask(url: string, path: string, authorization?: string) {
  const res = await fetch(`${url}${path}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  const text = await res.text();
  return {
    status: res.status,
    error: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>)['error'] : undefined,
    challenge: res.headers.get('www-authenticate'),
  };
}

t.test('the Bearer scheme is read in any case and after any run of spaces', async (t) => {
  const node = await startNode(t);
  for (const authorization of [
    `Bearer ${TOKEN}`,
    `bearer ${TOKEN}`,
    `BEARER ${TOKEN}`,
    `bEaReR ${TOKEN}`,
    `Bearer   ${TOKEN}`,
  ]) {
    // GET /config before the first revision: 404 past the guard, 401 at it.
    const r = await ask(node.url, '/config', authorization);
    t.same(
      [r.status, r.error],
      [404, 'no_active_revision'],
      JSON.stringify(authorization.replace(TOKEN, 'T')),
    );
  }
});

t.test('any other form is a present credential, refused even where reads are open', async (t) => {
  const node = await startNode(t);
  const basic = Buffer.from(`ops:${TOKEN}`).toString('base64');
  const forms = [
    `Bearer${TOKEN}`,
    `Token ${TOKEN}`,
    `Basic ${basic}`,
    `Bearer "${TOKEN}"`,
    `Bearer ${TOKEN} ${TOKEN}`,
    `Bearer ${TOKEN}, Bearer ${TOKEN}`,
    'Bearer',
  ];
  for (const authorization of forms) {
    for (const path of ['/org', '/config']) {
      const r = await ask(node.url, path, authorization);
      t.same(
        r,
        { status: 401, error: 'invalid_token', challenge: 'Bearer realm="svc", error="invalid_token"' },
        `${path}: ${JSON.stringify(authorization.replaceAll(TOKEN, 'T').replace(basic, 'B64'))}`,
      );
    }
  }
  // Two headers each holding the right token: only one could be read, so neither is.
  for (const path of ['/org', '/config']) {
    const conn = await openConnection(node.port);
    t.teardown(() => conn.close());
    const bearer = `Authorization: Bearer ${TOKEN}\r\n`;
    conn.write(`GET ${path} HTTP/1.1\r\nHost: svc\r\n${bearer}${bearer}\r\n`);
    const twice = await conn.response();
    t.equal(twice.status, 401, `${path}: two Authorization headers`);
    t.equal(twice.headers['www-authenticate'], 'Bearer realm="svc", error="invalid_request"');
  }

  // The last refusal's line, read before counting: the log is written after the answer.
  await node.run.waitForLog((l) => l['reason'] === 'repeated' && l['route'] === '/config');
  const refusals = node.run.lines.filter((l) => l['event'] === 'auth_refused');
  t.equal(refusals.length, forms.length * 2 + 2, 'each refusal logged');
  t.same(
    refusals.filter((l) => l.level !== 40 || !['/org', '/config'].includes(String(l['route']))),
    [],
    'at WARNING with its route',
  );
  t.notOk(node.run.stdout().includes(TOKEN), 'never the candidate');
  t.notOk(node.run.stdout().includes(basic));
});

t.test('an empty Authorization is no credential; ?access_token= authenticates nobody', async (t) => {
  const node = await startNode(t, 'debug: true');
  t.same(await ask(node.url, '/org', ''), { status: 200, error: undefined, challenge: null });
  t.same(await ask(node.url, '/config', ''), {
    status: 401,
    error: 'invalid_token',
    challenge: 'Bearer realm="svc"',
  });
  const query = `access_token=${encodeURIComponent(TOKEN)}`;
  t.same(
    await ask(node.url, `/config?${query}`),
    { status: 401, error: 'invalid_token', challenge: 'Bearer realm="svc"' },
    'RFC 6750 2.3 is not taken',
  );
  t.same(
    await ask(node.url, `/org?${query}`),
    { status: 400, error: 'bad_params', challenge: null },
    'an open read refuses the parameter it does not read, unread (ops/http.md)',
  );
  // The header token last: its DEBUG line is the only acceptance.
  t.equal((await ask(node.url, '/org', `Bearer ${TOKEN}`)).status, 200);
  await node.run.waitForLog((l) => l['event'] === 'auth_accepted');
  t.same(
    node.run.lines.filter((l) => l['event'] === 'auth_accepted').map((l) => [l['route'], l['operator']]),
    [['/org', 'ops']],
    'nobody was authenticated before it',
  );
});
