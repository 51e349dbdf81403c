/**
 * Spec "Events", ordering and projection rules 3 and 5 inside `svc serve`, seeded from a stored stream
 * written out of order: an older pause or resume never overwrites newer state, instants compared across
 * encodings (`Z`, `+00:00`, `+02:00`, fraction lengths) where the strings sort the other way; a spend record
 * stamped ahead counts (it ages from arrival), one stamped before the window does not, one with an
 * unparseable stamp is kept.
 */
import { join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { event, spend } from '../projections/fixtures/readmodels.js';

const company = {
  name: 'Acme',
  timezone: 'UTC',
  roles: [
    { name: 'Ada', handle: 'ada' },
    { name: 'Bob', handle: 'bob' },
    { name: 'Cy', handle: 'cy' },
  ],
};

/** `ms` written with an offset of `hours` and `digits` fraction digits, e.g. `…T12:00:00.500000+02:00`. */
function stamp(ms: number, hours: number, digits: number): string {
  const shifted = new Date(ms + hours * 3_600_000).toISOString();
  const fraction = shifted.slice(20, 23).padEnd(digits, '0').slice(0, digits);
  const offset = hours === 0 ? '+00:00' : `+${String(hours).padStart(2, '0')}:00`;
  return `${shifted.slice(0, 19)}${digits > 0 ? `.${fraction}` : ''}${offset}`;
}

const get = async (url: string): Promise<Record<string, unknown>> =>
  (await (await fetch(url)).json()) as Record<string, unknown>;

t.test('a seeded node keeps the newest state by instant and windows spend by the rules', async (t) => {
  const first = await startNode(t);
  const put = await fetch(`${first.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'seats' },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201);
  await first.run.waitForLog((line) => line.msg === 'config applied');
  first.run.kill('SIGTERM');
  t.equal(await first.run.exited, 0);

  // Whole seconds, an hour ago: the stamps below differ by fractions.
  const base = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
  const paused = (handle: string, by: string, at: string) =>
    event('agent_paused', handle, { paused: { by, at, reason: 'r', stop_running: false } }, at);
  const resumed = (handle: string, by: string, at: string) => event('agent_resumed', handle, { by, at }, at);
  // Stored newest first: each second event is the older one.
  const stored = [
    // ada: resumed at base+0.75 s ("…Z"), then paused at base+0.5 s written at +02:00 (sorts later as text).
    resumed('ada', 'ada-resumer', new Date(base + 750).toISOString()),
    paused('ada', 'ada-pauser', stamp(base + 500, 2, 6)),
    // bob: paused at base+1 s ("+00:00", six digits), then resumed at base+0.9 s ("Z", one digit).
    paused('bob', 'bob-pauser', stamp(base + 1000, 0, 6)),
    // cy: that +02:00 encoding alone, read as a pause (ada's is not ignored as unreadable).
    paused('cy', 'cy-pauser', stamp(base + 500, 2, 6)),
    resumed('bob', 'bob-resumer', `${new Date(base + 900).toISOString().slice(0, 21)}Z`),
  ];
  const now = Date.now();
  const spent = [
    spend({ handle: 'ada', role: 'Ada', timestamp: new Date(now).toISOString(), total_tokens: 10 }),
    spend({
      handle: 'ada',
      role: 'Ada',
      timestamp: new Date(now + 3_600_000).toISOString(),
      total_tokens: 20,
    }),
    spend({
      handle: 'ada',
      role: 'Ada',
      timestamp: new Date(now - 25 * 3_600_000).toISOString(),
      total_tokens: 40,
    }),
    spend({ handle: 'ada', role: 'Ada', timestamp: 'not a time', total_tokens: 80 }),
  ];
  const bus = await openMemoryBus({ storeDir: join(first.dir, 'data') });
  await ensureCatalogue(bus);
  const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  for (const e of stored) await bus.publish(Subjects.event(e.type), encode(e), { msgId: e.id });
  for (const s of spent) await bus.publish(Subjects.spend('llm'), encode(s), { msgId: s.id });
  await bus.close();

  const second = runSvc(['serve', '--config', first.configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => second.kill('SIGKILL'));
  await second.waitForLog((line) => line.msg === 'node serving');
  t.match(await get(`${first.url}/agents/ada`), { paused: null }, 'ada: the newer resume stands');
  t.match(
    await get(`${first.url}/agents/bob`),
    { paused: { by: 'bob-pauser' } },
    'bob: the older resume does not lift the newer pause',
  );
  t.match(await get(`${first.url}/agents/cy`), { paused: { by: 'cy-pauser' } });
  const snapshot = await get(`${first.url}/stream/snapshot`);
  t.match(
    snapshot['tokens'],
    { records: 3, totals: { total_tokens: 110 } },
    'ahead and unparseable kept, the one stamped before the window dropped',
  );
  second.kill('SIGTERM');
  t.equal(await second.exited, 0);
});
