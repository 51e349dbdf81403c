/**
 * Scheduled turns on a served node over a real nats-server, talking to a local Anthropic-wire model:
 * `timeout_seconds` cuts a running turn once, failed, with the `scheduled_timeout` breach recorded, under
 * the deadline it fired with even when the schedule is edited meanwhile (spec: in-flight turns finish on the
 * prior settings); a wake fired before its schedule was removed still runs its turn (ops/schedules.md).
 */
import t, { type Test } from 'tap';
import { Streams, type Bus } from '../../bus/index.js';
import { agentId, EventRecord, Payloads, uuidv5 } from '../../schema/index.js';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));

interface Schedule {
  readonly name: string;
  readonly cron: string;
  readonly task: string;
  readonly timeout_seconds: number;
}

/** A six-field cron firing once a day, at the UTC second `ms` from now falls in. */
function cronAt(ms: number): string {
  const at = new Date(Date.now() + ms);
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
}

let epoch = 0;
async function apply(node: ServedNode, llm: LlmServer, schedules: Schedule[]): Promise<void> {
  const res = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': 'schedules',
    },
    body: JSON.stringify({
      name: 'Acme',
      timezone: 'UTC',
      providers: {
        llm: { main: { type: 'anthropic', model: 'claude-t', base_url: llm.baseUrl, api_keys: ['sk-t'] } },
        llm_order: ['main'],
      },
      roles: [{ name: 'Ada', schedules }],
    }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`apply: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { epoch: number };
  epoch = body.epoch;
  await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === epoch);
}

/** Answers every call with a clean verdict; a call naming one of `held` waits until released. */
async function model(t: Test, held: readonly string[]): Promise<LlmServer> {
  const llm = await startLlmServer({
    wire: 'anthropic',
    script: (req) => {
      const text = JSON.stringify(req.body);
      const hold = held.find((h) => text.includes(h));
      return {
        kind: 'text',
        text: '{"verdict":"done","notes":"ok"}',
        usage: { input_tokens: 10, output_tokens: 2 },
        ...(hold !== undefined ? { hold } : {}),
      };
    },
  });
  t.teardown(async () => {
    for (const h of held) llm.release(h);
    await llm.close();
  });
  return llm;
}

async function stored(bus: Bus): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  for await (const msg of bus.replay(Streams.Events)) events.push(EventRecord.parse(decode(msg.data)));
  return events;
}

const turnOf = (wakeId: string): string => uuidv5(agentId('Acme', 'ada'), wakeId);

/** The stored completion of `turnId`, once there. */
async function completion(bus: Bus, turnId: string): Promise<Payloads.AgentTurnCompleted> {
  const events = await until(
    () => stored(bus),
    (es) => es.some((e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] === turnId),
    30_000,
  );
  const e = events.find((x) => x.type === 'agent_turn_completed' && x.payload['turn_id'] === turnId);
  return Payloads.AgentTurnCompleted.parse(e!.payload);
}

t.test(
  'a scheduled turn past timeout_seconds ends failed once with the breach, under the deadline it fired with though the schedule was edited meanwhile',
  async (t) => {
    const llm = await model(t, ['digest-task']);
    const { bus, node } = await startBusNode(t);
    await apply(node, llm, []);
    await node.run.waitForLog((l) => l.msg === 'scheduler duty taken', 20_000);
    await apply(node, llm, [
      { name: 'digest', cron: cronAt(3_000), task: 'digest-task', timeout_seconds: 3 },
    ]);
    // The turn's plan call hangs on the model; while it does, the schedule gets a new cron and an hour.
    await llm.waitForRequests(1);
    await apply(node, llm, [
      { name: 'digest', cron: '0 0 0 1 1 *', task: 'digest-task', timeout_seconds: 3600 },
    ]);

    const breaches = await until(
      async () => (await stored(bus)).filter((e) => e.type === 'turn.guard_breach'),
      (es) => es.length >= 1,
      30_000,
    );
    const breach = breaches[0]!.payload as Record<string, string | number>;
    t.match(breach, { kind: 'scheduled_timeout', schedule_name: 'digest', timeout_seconds: 3 });
    t.equal(
      Date.parse(String(breach['deadline'])) - Date.parse(String(breach['fired_at'])),
      3_000,
      'the deadline the wake fired with',
    );
    const turnId = String(breach['turn_id']);
    const done = await completion(bus, turnId);
    t.equal(done.failed, true);
    t.match(done.error, /^scheduled_timeout: schedule digest allows 3 s; .* passed while the turn ran$/);

    // A later wake's turn completing shows the seat moved on: nothing more of the cut turn is recorded.
    const after = mentionWake('after-task');
    await queueWake(bus, 'ada', after);
    await completion(bus, turnOf(after.id));
    const events = await stored(bus);
    t.equal(events.filter((e) => e.type === 'turn.guard_breach').length, 1, 'the breach is recorded once');
    t.equal(
      events.filter((e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] === turnId).length,
      1,
      'the scheduled turn completes once',
    );
  },
);

t.test('a wake fired before its schedule was removed still runs its turn', async (t) => {
  const llm = await model(t, ['busy-task']);
  const { bus, node } = await startBusNode(t);
  await apply(node, llm, []);
  await node.run.waitForLog((l) => l.msg === 'scheduler duty taken', 20_000);
  // Ada is busy: the scheduled wake waits in her inbox behind this turn.
  const busy = mentionWake('busy-task');
  await queueWake(bus, 'ada', busy);
  await llm.waitForRequests(1);
  await apply(node, llm, [{ name: 'sweep', cron: cronAt(2_000), task: 'sweep-task', timeout_seconds: 120 }]);
  await node.run.waitForLog((l) => l.msg === 'schedule fired' && l['schedule'] === 'sweep', 20_000);
  await apply(node, llm, []);
  llm.release('busy-task');

  await completion(bus, turnOf(busy.id));
  const ran = await until(
    async () =>
      (await stored(bus)).filter(
        (e) => e.type === 'agent_turn_completed' && e.payload['trigger'] === 'schedule',
      ),
    (es) => es.length >= 1,
    30_000,
  );
  t.equal(ran.length, 1);
  t.equal(Payloads.AgentTurnCompleted.parse(ran[0]!.payload).failed, false, 'it ran clean');
  t.ok(
    llm.requests.some((r) => JSON.stringify(r.body).includes('sweep-task')),
    'with the task it fired with',
  );
});

t.test(
  'a scheduled turn cut by a crash and taken again past its deadline ends failed once, as a turn that had started',
  async (t) => {
    const llm = await model(t, ['crash-task']);
    const { bus, node, nats } = await startBusNode(t);
    await apply(node, llm, []);
    await node.run.waitForLog((l) => l.msg === 'scheduler duty taken', 20_000);
    await apply(node, llm, [{ name: 'crash', cron: cronAt(3_000), task: 'crash-task', timeout_seconds: 3 }]);
    await llm.waitForRequests(1);
    node.run.kill('SIGKILL');
    await node.run.exited;
    // The wake comes back once the dead holder's acknowledgement wait has run out: past the deadline.
    const second = await startNode(t, '', `jetstream, url: "${nats.url}"`);
    const breaches = await until(
      async () => (await stored(bus)).filter((e) => e.type === 'turn.guard_breach'),
      (es) => es.length >= 1,
      60_000,
    );
    const turnId = String(breaches[0]!.payload['turn_id']);
    const done = await completion(bus, turnId);
    t.equal(done.failed, true);
    t.match(done.error, /^scheduled_timeout: schedule crash allows 3 s; /);
    t.notMatch(done.error, /before the turn could start/, 'it had started: the crash cut it');
    const events = await stored(bus);
    const started = events.filter((e) => e.type === 'agent_phase_started' && e.payload['turn_id'] === turnId);
    const ended = events.filter((e) => e.type === 'agent_phase_completed' && e.payload['turn_id'] === turnId);
    // The plan the crash cut is closed from the journal, failed with the turn's error.
    t.ok(started.length >= 1, 'the crash cut a phase it had started');
    t.equal(ended.length, started.length, 'every phase it started is closed');
    t.ok(
      ended.every((e) => e.failed && e.payload['error'] === done.error),
      "the cut phase fails with the turn's error",
    );
    t.equal(breaches.length, 1, 'the breach is recorded once');
    second.run.kill('SIGTERM');
    await second.run.exited;
  },
);
