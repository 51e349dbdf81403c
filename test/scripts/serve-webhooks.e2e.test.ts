/**
 * Webhooks on a real `svc serve`: 503 before the first revision, then a signed delivery is accepted,
 * routed to the seat it names, counted on `/integrations` (which never shows a secret).
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const SECRET = 'codehost-a-serve-secret-0123';

t.test('a node serves the receivers: 503 unconfigured, then verified, routed and counted', async (t) => {
  const node = await startNode(t);
  const body = JSON.stringify({
    action: 'assigned',
    sender: { login: 'someone' },
    issue: { number: 7, title: 'Bug', assignees: [{ login: 'cy' }] },
  });
  const signed = (id: string) => ({
    'content-type': 'application/json',
    'x-codehost-a-event': 'issues',
    'x-codehost-a-delivery': id,
    'x-codehost-a-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
  });
  const early = await fetch(`${node.url}/webhooks/codehost-a`, {
    method: 'POST',
    headers: signed('d-0'),
    body,
  });
  t.equal(early.status, 503, 'an unconfigured node answers 503');
  t.equal(early.headers.get('retry-after'), '30');

  const company = {
    name: 'Acme',
    integrations: { codehost_a: { webhook_secret: SECRET } },
    roles: [{ name: 'Ada' }, { name: 'Cy' }],
  };
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': 'webhooks',
    },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, await put.text());
  // The write answers at activation; the receivers follow once this node has applied it.
  await node.run.waitForLog((l) => l.msg === 'config applied');

  const bad = await fetch(`${node.url}/webhooks/codehost-a`, {
    method: 'POST',
    headers: { ...signed('d-1'), 'x-codehost-a-signature-256': `sha256=${'0'.repeat(64)}` },
    body,
  });
  t.equal(bad.status, 401);
  const ok = await fetch(`${node.url}/webhooks/codehost-a`, { method: 'POST', headers: signed('d-1'), body });
  t.equal(ok.status, 200);
  t.same(await ok.json(), { accepted: true, duplicate: false });
  const again = await fetch(`${node.url}/webhooks/codehost-a`, {
    method: 'POST',
    headers: signed('d-1'),
    body,
  });
  t.same(await again.json(), { accepted: true, duplicate: true });

  const routed = await node.run.waitForLog((l) => l['event'] === 'notification_routed');
  t.same(routed['recipients'], ['cy']);

  const integrations = await fetch(`${node.url}/integrations`);
  const text = await integrations.text();
  t.notOk(text.includes(SECRET), 'no secret value in /integrations');
  const surfaces = (JSON.parse(text) as { surfaces: Array<Record<string, unknown>> }).surfaces;
  const hook = surfaces.find((s) => s['surface'] === 'codehost-a');
  t.match(hook, {
    configured: true,
    secret_present: true,
    arrivals: { accepted: 1, duplicates: 1, refused: 1 },
  });
  t.match(
    surfaces.find((s) => s['surface'] === 'codehost-b'),
    { secret_present: false },
  );
  // The route adapts the registered `integrations` question: `/query/integrations` gives the same answer.
  const asked = await fetch(`${node.url}/query/integrations`);
  t.equal(asked.status, 200);
  const answer = (await asked.json()) as Record<string, unknown>;
  t.same(answer, JSON.parse(text), '/query/integrations answers as /integrations');
  t.same(answer['coverage'], { nodes: [{ id: answer['node'], answered: true }], complete: true });
  t.notOk(
    node.run.lines.some((l) => JSON.stringify(l).includes(SECRET)),
    'no secret in the log',
  );
});
