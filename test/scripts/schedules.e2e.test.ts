import t from 'tap';
import { until } from '../harness/until.js';
import { SchedulesAnswer } from '../../schema/index.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

const company = {
  name: 'Acme',
  timezone: 'Europe/Berlin',
  units: [
    {
      name: 'Ops',
      type: 'team',
      lead: 'Hank',
      // Six fields: every second, so the node fires while the test watches.
      schedules: [{ name: 'pulse', cron: '* * * * * *', task: 'Check the queue', timeout_seconds: 30 }],
      roles: [{ name: 'Hank', kind: 'human', contact: { chat_user_id: 'U1' } }, { name: 'Ivy' }],
    },
  ],
};

t.test('a served node fires an applied schedule and answers /schedules with its ledger', async (t) => {
  const { run, url } = await startNode(t);
  const put = await fetch(`${url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': 'schedules',
    },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, await put.clone().text());

  await run.waitForLog((line) => line.msg === 'scheduler duty taken', 10_000);
  let fired = 0;
  await run.waitForLog((line) => line.msg === 'schedule fired' && ++fired >= 2, 10_000);

  const answer = SchedulesAnswer.parse(await (await fetch(`${url}/schedules`)).json());
  t.match(answer.schedules, [
    {
      scope_type: 'unit',
      scope_id: 'Ops',
      name: 'pulse',
      timezone: 'Europe/Berlin',
      target: 'each',
      runners: ['ivy'],
      timeout_seconds: 30,
      next_run: /^\d{4}-\d\d-\d\dT/,
    },
  ]);
  t.ok(answer.recent_runs.length >= 1, 'the ledger shows the firings');
  t.match(answer.recent_runs[0], { schedule_name: 'pulse', target_handle: 'ivy', outcome: 'fired' });
  t.ok(
    answer.recent_runs.every((r) => r.target_handle === 'ivy'),
    'never the human seat',
  );

  const query = await fetch(`${url}/query/schedules`);
  t.equal(query.status, 200);
  const snapshot = (await (await fetch(`${url}/stream/snapshot`)).json()) as { schedules: unknown };
  t.match(
    snapshot.schedules,
    { schedules: [{ name: 'pulse', runners: ['ivy'] }] },
    'the snapshot carries them',
  );
  run.kill('SIGTERM');
  t.equal(await run.exited, 0);
});

t.test(
  'a schedule whose ${VAR} cron or timezone resolves to something unschedulable is warned about on the write',
  async (t) => {
    const env = { PULSE_CRON: '61 * * * *', PULSE_TZ: 'Mars/Olympus', GOOD_CRON: '0 9 * * *' };
    const { run, url } = await startNode(t, '', 'memory', env);
    const schedules = [
      { name: 'bad-cron', cron: '${PULSE_CRON}', task: 'x' },
      { name: 'bad-zone', cron: '${GOOD_CRON}', timezone: '${PULSE_TZ}', task: 'x' },
      { name: 'fine', cron: '${GOOD_CRON}', task: 'x' },
    ];
    const doc = { name: 'Acme', timezone: 'UTC', roles: [{ name: 'Ivy', schedules }] };
    const put = await fetch(`${url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 's' },
      body: JSON.stringify(doc),
    });
    t.equal(put.status, 201, 'stored: the variable may change before it fires');
    const body = (await put.json()) as { warnings: Array<{ kind: string; path: string; message: string }> };
    t.same(
      body.warnings.filter((w) => w.kind === 'admission').map((w) => w.path),
      ['roles[0].schedules[0].cron', 'roles[0].schedules[1].timezone'],
      'each field that cannot be scheduled, at its path',
    );
    t.notMatch(JSON.stringify(body.warnings), /61 \*|Mars/, 'the resolved value is not quoted');
    // The node applies the revision after answering: read the schedules once it has.
    const answer = await until(
      async () => SchedulesAnswer.parse(await (await fetch(`${url}/schedules`)).json()),
      (a) => a.schedules.length === 3,
    );
    t.same(
      answer.schedules.map((s) => [s.name, s.next_run === '']),
      [
        ['bad-cron', true],
        ['bad-zone', true],
        ['fine', false],
      ],
      'what the warnings name never fires',
    );
    run.kill('SIGTERM');
    t.equal(await run.exited, 0);
  },
);
