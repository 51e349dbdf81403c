// A managed document: writes by other credentials refused, before the body when none is needed.
import t from 'tap';
import { request } from 'node:http';
import { CI_TOKEN, firstRevision, json, OPS_TOKEN, startConfigNode } from './fixtures/config-node.js';
import { openAuth } from './fixtures/gateway-harness.js';

/** Sends the head and 3 of 100 announced body bytes, never the rest; resolves with the answer. */
function unfinished(base: string, method: string, path: string, token: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': '100',
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.write('{"n');
  });
}

t.test(
  'a managed document refuses writes from other credentials with 403 before anything is read',
  async (t) => {
    const node = await startConfigNode(t, { auth: { ...openAuth, companyWriters: ['ops'] } });
    await firstRevision(node);
    const other = await node.call('PUT', '/config', {
      auth: CI_TOKEN,
      body: 'not even json',
      headers: { 'x-summary': 's' },
    });
    t.equal(other.status, 403);
    t.match(await json(other), { error: 'config_managed', managed_by: ['ops'] });
    t.equal(
      (await node.call('PATCH', '/config', { auth: CI_TOKEN, body: {}, headers: { 'x-summary': 's' } }))
        .status,
      403,
    );
    t.equal((await node.call('GET', '/config', { auth: CI_TOKEN })).status, 200, 'reads stay open');
    t.equal((await node.call('POST', '/config/reload', { auth: CI_TOKEN })).status, 201, 'reload stays open');
  },
);

t.test('refusals that need no body answer before it arrives', async (t) => {
  const node = await startConfigNode(t, { auth: { ...openAuth, companyWriters: ['ops'] } });
  await firstRevision(node);
  const missing = await unfinished(node.base, 'PUT', '/config/roles/nobody', OPS_TOKEN);
  t.match(missing, { status: 404, body: { error: 'no_such_entity' } }, 'an id not carried');
  for (const [method, path] of [
    ['PUT', '/config'],
    ['PATCH', '/config'],
    ['PUT', '/config/roles/bo-agent'],
  ] as const) {
    const managed = await unfinished(node.base, method, path, CI_TOKEN);
    t.match(managed, { status: 403, body: { error: 'config_managed' } }, `${method} ${path} by a non-writer`);
  }
});
