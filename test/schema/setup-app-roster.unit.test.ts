/**
 * The code-host tool's roster (spec "Per-seat code-host app setup"): each agent seat carries `tier`, `step`
 * and `action_url`; `create_app` has an empty `action_url`, `install_app` the code host's install page for
 * the app's slug, and an installed app leaves the steps.
 */
import t from 'tap';
import { appRoster } from '../../schema/index.js';

const seat = (name: string, codehost_a?: Record<string, unknown>) => ({
  name,
  ...(codehost_a ? { integrations: { codehost_a } } : {}),
});
const doc = {
  name: 'Acme',
  roles: [seat('Ada'), seat('Bo', { app_id: 42, app_slug: 'bo bot', installation_id: 0 })],
  units: [{ name: 'Eng', roles: [seat('Cy', { app_id: '7', app_slug: 'cy-bot', installation_id: 9 })] }],
};

t.test('each seat is at the step its block records, with the link that step needs', async (t) => {
  t.same(appRoster(doc, ['ada', 'bo', 'cy'], 'https://codehost-a.example/'), [
    { handle: 'ada', app_id: null, app_slug: null, installation_id: null, tier: 'org', step: 'create_app', action_url: '' },
    { handle: 'bo', app_id: 42, app_slug: 'bo bot', installation_id: 0, tier: 'org', step: 'install_app', action_url: 'https://codehost-a.example/apps/bo%20bot/installations/new' },
    { handle: 'cy', app_id: '7', app_slug: 'cy-bot', installation_id: 9, tier: 'seat', step: null, action_url: '' },
  ]); // prettier-ignore
});

t.test('without the code host web location the install step has no link', async (t) => {
  t.match(appRoster(doc, ['bo'], null), [{ step: 'install_app', action_url: '' }]);
});

t.test('a handle the document does not hold reads as a seat without an app', async (t) => {
  t.match(appRoster(null, ['zed'], 'https://x'), [{ handle: 'zed', step: 'create_app', action_url: '' }]);
});
