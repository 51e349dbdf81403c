/**
 * `notification_rate_limit` on a real `svc serve` (ops/config.md "Notification rate limit"): with a limit of
 * one a minute, a signed codehost-a delivery assigning an issue to the agent seat `cy` wakes it, and a second
 * one inside the minute wakes nobody: the router records one `NotificationSkipped` event, readable on
 * `/events` (by type and by seat), and `cy` runs one turn. Until now only the router's own tests saw it.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const SECRET = 'codehost-a-skip-secret-0123';
const auth = { authorization: `Bearer ${TOKEN}` };

t.test(
  'a delivery past a seat’s rate limit is recorded as NotificationSkipped and wakes it not',
  async (t) => {
    // Every model call answers a review verdict: each phase reads it and a turn ends clean.
    const llm = await startLlmServer({
      wire: 'openai',
      script: () => ({ kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage: { prompt_tokens: 10 } }),
    });
    t.teardown(() => llm.close());
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'rate limit' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'UTC',
        providers: localProviders(llm.baseUrl),
        notification_rate_limit: 1,
        integrations: { codehost_a: { webhook_secret: SECRET } },
        roles: [{ name: 'Cy' }],
      }),
    });
    t.equal(put.status, 201, await put.clone().text());
    const revision = ((await put.json()) as Json)['revision_id'];
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['revision_id'] === revision);

    const deliver = async (id: string, number: number) => {
      const body = JSON.stringify({
        action: 'assigned',
        sender: { login: 'someone' },
        issue: { number, title: `Bug ${number}`, assignees: [{ login: 'cy' }] },
      });
      const res = await fetch(`${node.url}/webhooks/codehost-a`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-codehost-a-event': 'issues',
          'x-codehost-a-delivery': id,
          'x-codehost-a-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      t.equal(res.status, 200, `${id} accepted`);
      return node.run.waitForLog(
        (l) => l['event'] === 'notification_routed' && String(l['notification']).endsWith(id),
      );
    };
    const events = async (query: string) => {
      const res = await fetch(`${node.url}/events?${query}`, { headers: auth });
      t.equal(res.status, 200);
      return ((await res.json()) as { rows: Json[] }).rows;
    };

    const first = await deliver('d-1', 1);
    t.same(first['recipients'], ['cy'], 'the first delivery wakes cy');
    await node.run.waitForLog((l) => l.msg === 'turn completed');

    const second = await deliver('d-2', 2);
    t.same(second['recipients'], [], 'the second, inside the minute, wakes nobody');
    const skipped = await until(
      () => events('type=NotificationSkipped'),
      (rows) => rows.length > 0,
    );
    t.equal(skipped.length, 1, 'one skip recorded');
    t.match(skipped[0], {
      type: 'NotificationSkipped',
      category: 'notification',
      agent_id: 'cy',
      summary: /^cy not woken by codehost-a .*over 1 notifications a minute$/,
    });
    const one = await fetch(`${node.url}/events/${String(skipped[0]!['id'])}`, { headers: auth });
    t.match(await one.json(), {
      payload: {
        recipient: 'cy',
        reason: 'rate_limited',
        limit_per_minute: 1,
        vendor: 'codehost-a',
        notification: /d-2$/,
      },
    });
    t.same(
      (await events('agent_id=cy')).filter((r) => r['type'] === 'NotificationSkipped').map((r) => r['id']),
      [skipped[0]!['id']],
      'the seat filter finds it',
    );

    // The router published no wake for d-2 (its routing is logged as woken nobody), so cy's one turn is d-1's.
    const turns = (await events('agent_id=cy&type=agent_turn_completed')).length;
    t.equal(turns, 1, 'cy ran one turn');
    t.equal(
      node.run.lines.filter((l) => l.msg === 'turn completed').length,
      1,
      'and the seat was woken once',
    );
  },
);
