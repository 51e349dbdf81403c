/**
 * Spec "Events" ("Event types named") on a real `svc serve` over a real nats-server, the seat's model the
 * local fake provider: a turn woken by a person's delivery, read from the bus as a peer would and from a
 * dashboard's socket. `agent_turn_progress` goes out on its live subject only, never `svc.events.>`, each
 * phase's first frame in round -1 with the phase's `max_rounds`, later ones carrying the accumulated
 * response and the tool calls so far; `agent_phase_completed` carries the system prompt, response, tool
 * calls, tokens and timeline. The counterparty profiler's `auxiliary_spend` is stored and counted in spend,
 * never an `event` frame, never in the snapshot's events nor `/events?feed_only=true`. Every stored event
 * carries one of the eight categories.
 */
import t from 'tap';
import { Streams, Subjects } from '../../bus/index.js';
import { EventCategory } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import type { Step } from '../fixtures/llm/script.js';
import { call } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { until } from '../harness/until.js';
import { mentionWake, notificationFrom, queueWake } from '../harness/wake.js';
import { dashboard, type Frame } from '../http/fixtures/events-node.js';

type Json = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are read loosely and matched
type Loose = any;
const usage = { prompt_tokens: 10, completion_tokens: 5 };
const dec = new TextDecoder();

/** Plan picks org_lookup; execute calls it once, then reports; review accepts; the profiler answers traits. */
function answer(body: Json | null): Step {
  const asked = JSON.stringify(body);
  const system = JSON.stringify((body?.['messages'] as unknown[] | undefined)?.[0]);
  if (asked.includes('profile of a person'))
    return { kind: 'text', text: '{"traits":{"role":"release manager"},"corroborated":false}', usage };
  if (system.includes('Phase: PLAN'))
    return {
      kind: 'text',
      text: '{"decision":"plan","steps":["look up"],"success_criteria":["found"],"tools":["org_lookup"]}',
      usage,
    };
  if (system.includes('Phase: REVIEW'))
    return { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };
  if (asked.includes('"role":"tool"')) return { kind: 'text', text: 'Looked Ada up.', usage };
  return {
    kind: 'tool_calls',
    calls: [{ id: 'c1', name: 'org_lookup', arguments: { query: 'ada' } }],
    usage,
  };
}

t.test(
  'a served turn: progress is live-only from round -1, phases carry their record, auxiliary spend counts ' +
    'but is never a feed row, and every stored event has one of the eight categories',
  async (t) => {
    const llm = await startLlmServer({ wire: 'openai', script: (request) => answer(request.body) });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    const live: Json[] = [];
    const onEvents: string[] = [];
    const progress = bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (m) =>
      live.push(JSON.parse(dec.decode(m.data)) as Json),
    );
    const events = bus.subscribe(Subjects.events, (m) => onEvents.push(m.subject));
    t.teardown(() => progress.stop());
    t.teardown(() => events.stop());
    const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
    t.teardown(() => d.client.close());
    await d.next((f) => f.kind === 'snapshot');

    const put = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      learning: { counterparty: { enabled: true } },
      roles: [{ name: 'Ada' }],
    });
    t.equal(put.status, 201, JSON.stringify(put.body));
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');

    const grace = notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace Hopper' });
    const wake = mentionWake('Who is Ada?', { payload: { notification: grace } });
    await queueWake(bus, 'ada', wake);
    const isProfile = (f: Frame): boolean =>
      f.kind === 'event' && f.data?.type === 'counterparty_profile_updated';
    await (d.frames.find(isProfile) ?? d.next(isProfile));
    // The profiler's spend is in the rollup once the ledger folded it.
    const tokens = await until(
      () => call(node.url, 'GET', '/tokens/breakdown'),
      (r) =>
        ((r.body['by_worker'] as Json[] | undefined) ?? []).some(
          (w) => w['worker'] === 'counterparty_profiler',
        ),
      15_000,
    );
    t.match(tokens.body['by_worker'], [{ worker: 'counterparty_profiler', total_tokens: 15 }]);

    // Progress: live only, each phase opening in round -1, the execute phase's later frame with its call.
    t.notOk(
      onEvents.includes('svc.events.agent_turn_progress'),
      'progress is never published where the event stream stores',
    );
    const payloads: Loose[] = live.map((e) => e['payload']);
    const turnId = String(payloads[0]?.turn_id);
    t.match(turnId, /^[0-9a-f-]{36}$/, 'progress frames were emitted');
    for (const phase of ['plan', 'execute', 'review']) {
      const frames = payloads.filter((p) => p.phase === phase);
      t.match(
        frames[0],
        {
          turn_id: turnId,
          phase,
          iteration: 0,
          round_num: -1,
          max_rounds: Number,
          response: '',
          tool_calls: [],
        },
        `${phase}: the first frame is the opening round in flight`,
      );
    }
    t.ok(
      payloads.some(
        (p) =>
          p.phase === 'execute' &&
          p.round_num === 0 &&
          p.response === 'Looked Ada up.' &&
          p.tool_calls.length === 1 &&
          p.tool_calls[0].name === 'org_lookup',
      ),
      'a later execute frame carries the accumulated response and the tool calls so far',
    );
    t.notOk(
      d.frames.some((f) => f.kind === 'event' && f.data?.type === 'agent_turn_progress'),
      'progress is never an event frame',
    );

    // The phase record: system prompt, response, tool calls, tokens and timeline.
    const trace = (await call(node.url, 'GET', `/events/trace/${wake.trace_id}`)).body['events'] as Json[];
    const phaseRecords: Json[] = [];
    for (const e of trace.filter((x) => x['type'] === 'agent_phase_completed'))
      phaseRecords.push((await call(node.url, 'GET', `/events/${String(e['id'])}`)).body);
    t.equal(phaseRecords.length, 3, 'the trace holds the three completed phases');
    t.match(
      phaseRecords.find((e) => (e['payload'] as Json)['phase'] === 'execute'),
      {
        category: 'lifecycle',
        agent_id: 'ada',
        payload: {
          turn_id: turnId,
          system_prompt: /Phase: EXECUTE/,
          response: 'Looked Ada up.',
          tool_executions: [{ name: 'org_lookup' }],
          input_tokens: 20,
          output_tokens: 10,
          total_tokens: 30,
          timeline: Array,
        },
      },
    );
    t.ok(
      trace.some((e) => e['type'] === 'agent_turn_completed' && e['agent_id'] === 'ada'),
      'the turn completed in its trace',
    );

    // auxiliary_spend: stored (the full list shows it), never a feed row, a snapshot event or a frame. The
    // profiler records its spend before its profile, so a pushed spend event would precede the profile's frame.
    const all = (await call(node.url, 'GET', '/events?limit=400')).body['rows'] as Json[];
    t.ok(
      all.some((e) => e['type'] === 'auxiliary_spend' && e['agent_id'] === 'ada'),
      'auxiliary_spend is stored',
    );
    const feed = (await call(node.url, 'GET', '/events?limit=400&feed_only=true')).body['rows'] as Json[];
    t.notOk(
      feed.some((e) => e['type'] === 'auxiliary_spend'),
      'never in the feed',
    );
    const snapshot = (await call(node.url, 'GET', '/stream/snapshot')).body;
    t.notOk(
      (snapshot['events'] as Json[]).some((e) => e['type'] === 'auxiliary_spend'),
      "never in the snapshot's events",
    );
    t.notOk(
      d.frames.some((f) => f.kind === 'event' && f.data?.type === 'auxiliary_spend'),
      'never an event frame',
    );

    // Every stored event carries one of the eight categories.
    const eight = new Set<string>(Object.values(EventCategory));
    const stored: Json[] = [];
    for await (const m of bus.replay(Streams.Events)) stored.push(JSON.parse(dec.decode(m.data)) as Json);
    t.ok(stored.length >= 10, `the stream holds the turn's events (${stored.length})`);
    for (const e of stored)
      t.ok(eight.has(String(e['category'])), `${String(e['type'])} is stored with a category of the eight`);
  },
);
