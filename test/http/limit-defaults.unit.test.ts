/** Spec "Limits": the defaults themselves, since the route tests shorten them to stay fast. */
import t from 'tap';
import { defaultLimits } from '../../http/index.js';
import { monitorTokenUsable } from '../../http/webhooks/monitor.verify.js';
import { MONITOR_TOKEN_MIN_LENGTH } from '../../schema/index.js';
import { rollupParams } from '../../projections/tokens/tokens.rollup.js';
import { fleetReadBudgetMs } from '../../http/scatter.js';
import { healthPulseMs } from '../../http/ws/stream-hub.js';

t.test('a body has 30 s to arrive; a webhook delivery may be 25 MiB', async (t) => {
  t.equal(defaultLimits.bodyTimeoutMs, 30_000);
  t.equal(defaultLimits.webhookBodyMaxBytes, 25 * 1024 * 1024);
});

t.test('a drain cuts in-flight requests 5 s after each listener starts closing', async (t) => {
  t.equal(defaultLimits.drainCutMs, 5_000);
  t.equal(defaultLimits.listenerCloseMs, 5_000);
});

t.test('dashboards get health every 5 s; a peer has 2 s to answer a fleet read', async (t) => {
  t.equal(healthPulseMs, 5_000);
  t.equal(fleetReadBudgetMs, 2_000);
});

t.test('the monitor token counts only from 26 characters', async (t) => {
  t.equal(MONITOR_TOKEN_MIN_LENGTH, 26, 'one limit for the route and the setup check');
  t.notOk(monitorTokenUsable('x'.repeat(25)), '25 characters: unset, the route answers 503');
  t.ok(monitorTokenUsable('x'.repeat(26)));
  t.notOk(monitorTokenUsable(null));
});

t.test('the token rollup reads 7 days and 50 recent turns unless asked otherwise', async (t) => {
  t.match(rollupParams(new URLSearchParams()), { since_days: 7, recent_turns: 50, agent_role: null });
  t.match(rollupParams(new URLSearchParams('since_days=90')), { since_days: 30 }, 'clamped to 30');
  t.match(rollupParams(new URLSearchParams('since_days=0')), { since_days: 1 }, 'clamped to 1');
  for (const raw of ['0x10', '1e1', 'abc', '', ' ', '1 0', 'Infinity'])
    t.match(rollupParams(new URLSearchParams({ since_days: raw })), { since_days: 7 }, `${raw} is no number`);
  t.match(rollupParams(new URLSearchParams('since_days=12')), { since_days: 12 });
  t.match(rollupParams(new URLSearchParams('since_days=2.9')), { since_days: 2 }, 'a fraction is cut');
});
