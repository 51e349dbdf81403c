/**
 * Reconcile findings on a served node (ops/setup.md "Findings"): an enabled integration that lacks a
 * required setting raises a `setup_incomplete` alarm under the requirement's `blocks` name, recorded as
 * `alarm_raised` and counted by `/health`; once the document supplies it, the alarm clears.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };

/** Asks `read` every 100 ms until `test` holds, for at most 30 s (the alarms look every 5 s). */
t.test(
  'an enabled integration missing a required setting raises its finding, cleared once supplied',
  async (t) => {
    const node = await startNode(t);
    const put = (webhookSecret: string | null) =>
      fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'tracker-b' },
        body: JSON.stringify({
          name: 'Acme',
          integrations: {
            tracker_b: {
              url: 'https://tb.example',
              workspace: 'acme',
              token: 'tb-token-0123456789',
              ...(webhookSecret === null ? {} : { webhook_secret: webhookSecret }),
            },
          },
          roles: [{ name: 'Ada' }],
        }),
      });
    t.equal((await put(null)).status, 201);
    const health = async () => (await (await fetch(`${node.url}/health`)).json()) as { alarms?: Json };
    t.match((await until(health, (h) => h.alarms?.['count'] === 1)).alarms, { count: 1, worst: 'warning' });

    const alarm = 'setup_incomplete:tracker_b.webhook_unsigned';
    const recorded = async (type: string): Promise<Json | undefined> => {
      const page = (await (await fetch(`${node.url}/events?category=system&limit=100`, { headers: auth })).json()) as { rows: Json[] }; // prettier-ignore
      for (const row of page.rows.filter((r) => r['type'] === type)) {
        const full = (await (await fetch(`${node.url}/events/${String(row['id'])}`, { headers: auth })).json()) as Json; // prettier-ignore
        if ((full['payload'] as Json)['alarm'] === alarm) return full;
      }
      return undefined;
    };
    const raised = await until(
      () => recorded('alarm_raised'),
      (e) => e !== undefined,
    );
    t.match(raised?.['payload'], {
      alarm,
      kind: 'setup_incomplete',
      severity: 'warning',
      detail: /tracker-b lacks Webhook secret/,
    });

    t.equal((await put('tb-webhook-secret')).status, 201);
    await until(health, (h) => h.alarms?.['count'] === 0);
    t.ok(
      await until(
        () => recorded('alarm_cleared'),
        (e) => e !== undefined,
      ),
      'the clear is recorded',
    );
  },
);
