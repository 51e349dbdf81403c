/**
 * The company timezone written as a `${VAR}` reference (spec "Tier B company document": timezone is
 * resolved, and any string may be a reference) reads resolved wherever the node uses it, not as UTC.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const json = async (url: string): Promise<Record<string, unknown>> =>
  (await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Record<
    string,
    unknown
  >;

t.test('a timezone given as ${VAR} is resolved in /org and in the schedules it defaults', async (t) => {
  const node = await startNode(t, '', 'memory', { COMPANY_TZ: 'Pacific/Auckland' });
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'tz' },
    body: JSON.stringify({
      name: 'Acme',
      timezone: '${COMPANY_TZ}',
      roles: [{ name: 'Ada', handle: 'ada', schedules: [{ name: 'standup', cron: '0 9 * * *', task: 'x' }] }],
    }),
  });
  t.equal(put.status, 201);
  await node.run.waitForLog((line) => line.msg === 'config applied');
  t.match(await json(`${node.url}/org`), { name: 'Acme', timezone: 'Pacific/Auckland' });
  t.match(await json(`${node.url}/schedules`), {
    schedules: [{ name: 'standup', timezone: 'Pacific/Auckland' }],
  });
});

t.test(
  'a timezone written in lower case shows in its IANA spelling in /org and /schedules; /config keeps it as written',
  async (t) => {
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'tz' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: 'pacific/auckland',
        roles: [
          {
            name: 'Ada',
            handle: 'ada',
            schedules: [
              { name: 'standup', cron: '0 9 * * *', task: 'x' },
              { name: 'close', cron: '0 17 * * *', timezone: 'america/new_york', task: 'y' },
            ],
          },
        ],
      }),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((line) => line.msg === 'config applied');
    t.match(await json(`${node.url}/org`), { timezone: 'Pacific/Auckland' });
    t.match(await json(`${node.url}/schedules`), {
      schedules: [
        { name: 'standup', timezone: 'Pacific/Auckland', next_run: /^\d{4}-/ },
        { name: 'close', timezone: 'America/New_York', next_run: /^\d{4}-/ },
      ],
    });
    const stored = await json(`${node.url}/config`);
    t.equal(stored['timezone'], 'pacific/auckland', 'the document reads as written');
    const schedules = (stored['roles'] as Array<{ schedules: Array<{ timezone?: string }> }>)[0]!.schedules;
    t.equal(schedules[1]!.timezone, 'america/new_york');
  },
);
