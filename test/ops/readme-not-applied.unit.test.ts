/**
 * README "Known limits" lists every setting that is accepted but not applied, as the code decides it: a
 * company document carrying all of them goes through the real `not_applied` check, and each path it warns
 * about must be named there, beside the warning the operator sees.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { notAppliedSettings } from '../../schema/company/not-applied.js';
import { root } from '../harness/child.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const limits = /^## Known limits\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';

t.test('every company setting the node warns not_applied about is named in Known limits', async (t) => {
  const doc = {
    extensions: { anything: { on: true } },
    providers: { embeddings: { default: { model: 'm' } } },
    learning: {
      personal_memory: { max_refreshes_per_turn: 3 },
      episode_lifecycle: { max_raw_episodes_per_agent: 500 },
    },
    notification_coalesce_max_batch: 5,
    notification_transports: { pigeon: { type: 'carrier_pigeon', events: ['human_asked'] } },
    turn_engine: { max_tool_rounds: 50, extension_round_step: 4 },
    roles: [{ name: 'Coder', sandbox: { default_coding_agent: 'claude -p', api_key: '${KEY}' } }],
  };
  const warned = notAppliedSettings(doc).map((w) => w.segments.join('.'));
  t.same(
    warned.sort(),
    [
      'extensions',
      'learning.episode_lifecycle.max_raw_episodes_per_agent',
      'notification_coalesce_max_batch',
      'notification_transports.pigeon',
      'providers.embeddings',
      'roles.0.sandbox.api_key',
      'turn_engine.extension_round_step',
      'turn_engine.max_tool_rounds',
    ],
    'the settings the check knows',
  );
  const bullet = limits.split('\n- ').find((b) => b.includes('`not_applied`')) ?? '';
  for (const path of warned) {
    const named = path.startsWith('notification_transports.')
      ? 'notification_transports'
      : path.includes('.sandbox.')
        ? 'sandbox'
        : path;
    t.match(bullet, `\`${named}\``, `${named} is named beside the not_applied warning`);
  }
  t.match(bullet, 'notification_coalesce_window_seconds', 'the batch size is said to need a window');
  // Applied (a turn's memory_recall cap): written in the document above, and neither warned nor listed.
  t.notMatch(bullet, 'max_refreshes_per_turn', 'the applied recall cap is not listed as unapplied');
});

t.test('the Tier A keys nothing reads are named with the start-up warning', async (t) => {
  const bullet = limits.split('\n- ').find((b) => b.includes('`tier_a_not_applied`')) ?? '';
  for (const key of ['providers.database.dsn', 'providers.knowledge.type'])
    t.match(bullet, `\`${key}\``, `${key} is named`);
  // The warning's name is the one serve logs.
  const serve = readFileSync(join(root, 'scripts', 'serve.ts'), 'utf8');
  t.match(serve, "event: 'tier_a_not_applied'");
  for (const key of ['providers.database.dsn', 'providers.knowledge.type']) t.match(serve, `'${key}'`);
});
