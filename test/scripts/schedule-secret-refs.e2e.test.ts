/**
 * On a served node: a schedule's `cron` and the company `timezone` written as `${VAR}`s the secret store
 * answers fire by their values, but no read answer, stored timing or log line holds them (spec: secrets never
 * appear in logs, error messages or read answers — only `${VAR}` names).
 */
import t from 'tap';
import { keyringYaml } from '../http/fixtures/secrets-node.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

const auth = { authorization: `Bearer ${TOKEN}` };
// Distinct values, each findable in a leak: thirteen past seven, in Chatham.
const CRON = '13 7 * * *';
const ZONE = 'Pacific/Chatham';
const leak = /13 7 \*|Chatham/;

t.test(
  'a secret cron and company timezone read as their references and still fire by their values',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    for (const [name, value] of [
      ['STANDUP_CRON', CRON],
      ['COMPANY_TZ', ZONE],
    ]) {
      const put = await fetch(`${node.url}/secrets/${name}`, { method: 'PUT', headers: auth, body: value });
      t.equal(put.status, 200, `${name} stored`);
    }
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'secret timing' },
      body: JSON.stringify({
        name: 'Acme',
        timezone: '${COMPANY_TZ}',
        roles: [
          {
            name: 'Ada',
            handle: 'ada',
            schedules: [{ name: 'standup', cron: '${STANDUP_CRON}', task: 'x' }],
          },
        ],
      }),
    });
    t.equal(put.status, 201);
    t.notMatch(await put.text(), leak, 'the write answer quotes no value');
    await node.run.waitForLog((line) => line.msg === 'config applied');

    const read = async (path: string): Promise<string> =>
      await (await fetch(`${node.url}${path}`, { headers: auth })).text();
    const schedules = JSON.parse(await read('/schedules')) as {
      schedules: Array<{ cron: string; timezone: string; next_run: string }>;
    };
    t.match(schedules.schedules, [{ cron: '${STANDUP_CRON}', timezone: '${COMPANY_TZ}' }]);
    const next = new Date(schedules.schedules[0]!.next_run);
    const wall = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit' });
    t.equal(wall.format(next), '07:13', 'next_run is 07:13 in the secret zone');
    for (const path of [
      '/schedules',
      '/query/schedules',
      '/stream/snapshot',
      '/org',
      '/budgets',
      '/config',
    ]) {
      t.notMatch(await read(path), leak, `${path} holds no value`);
    }
    t.notMatch(node.run.stdout(), leak, 'no log line holds a value');
  },
);
