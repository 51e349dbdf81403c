/**
 * The receivers use a credential without its outer whitespace (ops/webhooks.md "Choices"), so the setup
 * reads must judge it the same way: a monitor token of 25 characters written with `echo` (a newline
 * after it) or a webhook secret of only whitespace leaves the receiver closed (503), and the setup state
 * and its finding have to say so rather than read `satisfied` with no alarm.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

t.test(
  'a credential that is too short or empty once trimmed reads unresolved in setup and raises its finding',
  async (t) => {
    const node = await startNode(t, '', 'memory', {
      SVC_MONITOR_WEBHOOK_TOKEN: ` ${'m'.repeat(25)}\n`,
      TB_WEBHOOK_SECRET: ' \n',
    });
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'first' },
      body: JSON.stringify({
        name: 'Acme',
        integrations: {
          tracker_b: {
            url: 'https://tb.example',
            workspace: 'acme',
            token: 'tb-token-0123456789',
            webhook_secret: '${TB_WEBHOOK_SECRET}',
          },
        },
        roles: [{ name: 'Ada' }],
      }),
    });
    t.equal(put.status, 201, await put.clone().text());
    await node.run.waitForLog((line) => line.msg === 'config applied');

    // What a vendor meets: both receivers are closed.
    const monitor = await fetch(`${node.url}/webhooks/monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': 'm'.repeat(25) },
      body: '{"status":"firing"}',
    });
    t.equal(monitor.status, 503, 'the monitor receiver counts the token as unset');
    const trackerB = await fetch(`${node.url}/webhooks/tracker-b`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tracker-b-signature': '0'.repeat(64) },
      body: '{}',
    });
    t.equal(trackerB.status, 503, 'the tracker-b receiver counts the secret as unset');

    // What the operator reads.
    const state = async (kind: string): Promise<Json & { requirements: Json[] }> =>
      (await (await fetch(`${node.url}/setup/integrations/${kind}`, { headers: auth })).json()) as Json & {
        requirements: Json[];
      };
    const field = (s: { requirements: Json[] }, name: string) =>
      s.requirements.find((r) => r['field'] === name);
    const mon = await state('monitor');
    t.match(
      field(mon, 'webhook_token'),
      { present: true, resolved: null },
      'the monitor token does not resolve',
    );
    t.match(mon, { configured: true, satisfied: false });
    const tb = await state('tracker-b');
    t.match(
      field(tb, 'webhook_secret'),
      { present: true, resolved: null },
      'the webhook secret does not resolve',
    );
    t.match(tb, { satisfied: false });

    // And the findings are raised, as for an unset credential.
    const alarms = async (): Promise<string[]> => {
      const page = (await (await fetch(`${node.url}/events?category=system&limit=100`, { headers: auth })).json()) as { rows: Json[] }; // prettier-ignore
      const names: string[] = [];
      for (const row of page.rows.filter((r) => r['type'] === 'alarm_raised')) {
        const full = (await (await fetch(`${node.url}/events/${String(row['id'])}`, { headers: auth })).json()) as Json; // prettier-ignore
        names.push(String((full['payload'] as Json)['alarm']));
      }
      return names;
    };
    const raised = await until(
      alarms,
      (names) =>
        ['setup_incomplete:monitor.webhook_closed', 'setup_incomplete:tracker_b.webhook_unsigned'].every(
          (a) => names.includes(a),
        ),
      { everyMs: 500 },
    );
    t.ok(raised.includes('setup_incomplete:monitor.webhook_closed'));
    t.ok(raised.includes('setup_incomplete:tracker_b.webhook_unsigned'));
  },
);
