/**
 * A company `timezone` written as a `${VAR}` the secret store answers: the read models compute by its value
 * (days, months) but every answer shows the reference, never the value (spec: secrets never appear in read
 * answers); one the environment answers is shown resolved (spec: the timezone is shown resolved in /org).
 */
import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { companyDoc } from '../fixtures/readmodels.js';

const withRef = { ...companyDoc, timezone: '${COMPANY_TZ}' };

function models(secret: (name: string) => boolean): ReadModels {
  const m = new ReadModels({
    resolve: (name) => (name === 'COMPANY_TZ' ? 'Pacific/Chatham' : undefined),
    secret,
  });
  m.setCompany(withRef, 'rev-1');
  return m;
}

t.test('a company timezone from the secret store reads as its reference in every answer', async (t) => {
  const m = models(() => true);
  const answers = {
    org: m.org(),
    budgets: m.budgets(),
    activity: m.activity(new URLSearchParams()),
    series: m.tokenSeries(new URLSearchParams()),
  };
  t.match(answers.org, { timezone: '${COMPANY_TZ}' });
  t.notMatch(JSON.stringify(answers), /Chatham/, 'no answer holds the value');
  t.equal(m.companyModel.timezone, 'Pacific/Chatham', 'computed by its value');
});

t.test('a company timezone from the environment is shown resolved', async (t) => {
  const m = models(() => false);
  t.match(m.org(), { timezone: 'Pacific/Chatham' });
  t.match(m.budgets(), { window: { timezone: 'Pacific/Chatham' } });
});
