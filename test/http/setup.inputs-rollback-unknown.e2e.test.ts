/**
 * A setup inputs write whose credential could not be sealed rolls its revision back; when that rollback
 * revision is sent but not acknowledged (the config store lost its server before or after the record
 * landed), whether the write stands is unknown: the answer is a coded 503 `outcome_unknown` naming the
 * rollback's revision (to check), the write's, and the credentials not in the store, never a 201 as if
 * the rollback had not landed. What the write sealed stays sealed: its revision may still reference it.
 * The bus is real (memory engine); a hook fails the second seal and, from then on, the publish of the
 * revision record, as a lost server does.
 */
import t from 'tap';
import { NoRespondersError } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { Commands } from '../../schema/index.js';
import { flakyRevisionStore, hookedBus } from './fixtures/hooked-bus.js';
import { company, KEYRING, sendTrackerB, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const TOKEN = 'SVC_TRACKER_B_TOKEN';
const WEBHOOK = 'SVC_TRACKER_B_WEBHOOK_SECRET';
const VALUES = ['tb-new-token-0123456789', 'tb-new-webhook-0123456789'] as const;

for (const mode of ['before', 'after'] as const) {
  t.test(
    `an inputs write whose rollback revision fails ${mode} it lands answers outcome_unknown naming the rollback`,
    async (t) => {
      const inner = await openMemoryBus({});
      t.teardown(() => inner.close());
      const flaky = flakyRevisionStore(inner, mode);
      let puts = -1;
      const bus = hookedBus(flaky.bus, {
        async request(subject, forward) {
          if (puts < 0 || subject !== Commands.secrets.put.subject || ++puts !== 2) return forward();
          // The second seal is lost, and so is the rollback the write then sends.
          flaky.fail(true);
          throw new NoRespondersError(`no responders on ${subject}`);
        },
      });
      const node = await startSetupNode(t, { tierA: KEYRING, bus });
      const first = await node.putDocument(company());

      puts = 0;
      const res = await sendTrackerB(node, first, { token: VALUES[0], webhook_secret: VALUES[1] });
      const text = await res.text();
      t.equal(res.status, 503, text);
      t.equal(res.headers.get('retry-after'), '5');
      for (const value of VALUES)
        t.notMatch(text + node.rawLogs(), value, 'no credential in the answer or a log');
      const body = JSON.parse(text) as Json;
      const rollback = String(body['revision_id']);
      const written = String(body['rolled_back_revision_id']);
      t.match(body, {
        error: 'outcome_unknown',
        revision_id: /^[0-9a-f-]{36}$/,
        rolled_back_revision_id: String,
        unacknowledged_secret: WEBHOOK,
        unsealed: [{ field: 'webhook_secret', secret_name: WEBHOOK, generated: false }],
        detail: new RegExp(
          `${WEBHOOK} was sent.*rollback of revision ${written}, revision ${rollback}, .*may or may not.*${TOKEN}\\) stays sealed`,
        ),
        hint: new RegExp(`GET /config/revisions/${rollback}`),
      });
      t.not(written, first);
      t.not(written, rollback);
      t.equal(node.secrets.resolve(TOKEN), VALUES[0], 'the sealed credential stays: the write may stand');
      t.match(
        node.rawLogs(),
        new RegExp(`"event":"setup_inputs_rollback_unknown","kind":"tracker-b","revision_id":"${written}"`),
      );

      flaky.fail(false);
      const tried = await node.call('GET', `/config/revisions/${rollback}`);
      t.equal(
        tried.status,
        mode === 'after' ? 200 : 404,
        'the id named is the one the rollback stored under',
      );
    },
  );
}
