/**
 * Scatter reads whose answers are larger than one bus message (1 MiB on a default nats-server): two
 * nodes, each on its own connection to a real nats-server, read an agent whose 50 history rows sit near
 * their 64 Ki-character cap. The peer's answer arrives in parts and is merged whole; a peer whose parts do
 * not all arrive is named with that reason and none of its rows are merged; a node of the earlier release
 * (one message per answer) is still read, and asks a node of this release with a clear refusal back.
 */
import { connect, headers as natsHeaders } from '@nats-io/transport-node';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { fleetMerges, scatterQuestions, type Question } from '../../http/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { untilAnswered } from '../bus/contract-helpers.js';

const logger = pino({ level: 'silent' });
const ctx = { actor: { id: 'ops', kind: 'operator' as const }, log: logger };
const enc = new TextEncoder();
const dec = new TextDecoder();

interface Row {
  turn_id: string;
  phase: string;
  iteration: number;
  timestamp: string;
  response: string;
}
interface AgentAnswer {
  llm_history: Row[];
  coverage: { nodes: { id: string; answered: boolean; error?: string }[]; complete: boolean };
}

/** Turn k's row: its response 64 Ki characters that say which turn they belong to. */
const row = (k: number): Row => ({
  turn_id: `turn-${k}`,
  phase: 'plan',
  iteration: 0,
  timestamp: new Date(Date.UTC(2026, 11, 4, 10, k)).toISOString(),
  response: `turn-${k} é `.repeat(6_000).slice(0, 65_536),
});
const every = Array.from({ length: 50 }, (_, i) => row(50 - i));
const agent = (rows: Row[]) => ({ id: 'ada', activity: 'idle', llm_history: rows });

function questionsOf(rows: Row[]): Map<string, Question> {
  return new Map([['agent', { guarded: false, answer: () => agent(rows) }]]);
}

/** A node on its own connection: the agent question over `rows`, scattered to `roster`. */
async function startNode(t: Test, url: string, id: string, roster: string[], rows: Row[]) {
  const bus = await openJetStreamBus({ url });
  t.teardown(() => bus.close());
  const { questions, answerPeers } = scatterQuestions(questionsOf(rows), {
    bus,
    node: id,
    roster: () => Promise.resolve(roster),
    logger,
    merges: fleetMerges,
  });
  const responder = answerPeers();
  t.teardown(() => responder.stop());
  const ask = async () =>
    (await questions.get('agent')!.answer(new URLSearchParams({ id: 'ada' }), ctx)) as AgentAnswer;
  return { bus, ask };
}

const turns = (answer: AgentAnswer) => answer.llm_history.map((r) => r.turn_id);
/** Scatter protocol 1: spoken by this release and the one before it (parts are the bus's, not the protocol's). */
const v = 1;
const reply = (answer: unknown) => enc.encode(JSON.stringify({ v, ok: true, answer }));

t.test('a peer answer past one bus message arrives whole: every row merged, coverage complete', async (t) => {
  const server = await startNatsServer({ t });
  t.ok(reply(agent(every)).length > 3 * 1024 * 1024, "node-b's answer is over three bus messages");
  // node-a restarted: its seed kept the newest three turns; node-b holds all fifty.
  const a = await startNode(t, server.url, 'node-a', ['node-a', 'node-b'], every.slice(0, 3));
  const b = await startNode(t, server.url, 'node-b', ['node-a', 'node-b'], every);
  await untilAnswered(a.bus, 'svc.scatter.node-b');

  const answer = await a.ask();
  t.same(
    turns(answer),
    every.map((r) => r.turn_id),
    'the fifty rows, newest first',
  );
  t.same(answer.llm_history[49], row(1), 'each row whole, as node-b has it');
  t.same(answer.coverage, {
    nodes: [
      { id: 'node-a', answered: true },
      { id: 'node-b', answered: true },
    ],
    complete: true,
  });
  t.equal(turns(await b.ask()).length, 50, 'and the other way round');
});

t.test('a peer whose answer lost a part is named with that reason, none of its rows merged', async (t) => {
  const server = await startNatsServer({ t });
  const a = await startNode(t, server.url, 'node-a', ['node-a', 'node-b'], every.slice(0, 3));
  const lossy = await connect({ servers: server.url });
  t.teardown(() => lossy.close());
  // node-b sends its answer in parts of 512 KiB, all but the second.
  const whole = reply(agent(every));
  const size = 512 * 1024;
  const count = Math.ceil(whole.length / size);
  lossy.subscribe('svc.scatter.node-b', {
    callback: (_, msg) => {
      for (let k = 1; k <= count; k += 1) {
        if (k === 2) continue;
        const headers = natsHeaders();
        headers.set('Svc-Part', `${k}/${count}`);
        msg.respond(whole.subarray((k - 1) * size, k * size), { headers });
      }
    },
  });
  await lossy.flush();

  const answer = await a.ask();
  t.same(turns(answer), ['turn-50', 'turn-49', 'turn-48'], "node-a's rows alone");
  t.equal(answer.coverage.complete, false);
  t.match(answer.coverage.nodes, [
    { id: 'node-a', answered: true },
    {
      id: 'node-b',
      answered: false,
      error: `reply on svc.scatter.node-b incomplete: ${count - 1} of ${count} parts arrived within 2000 ms`,
    },
  ]);
});

t.test('in a mixed fleet the earlier release is read, and told the limit when it asks', async (t) => {
  const server = await startNatsServer({ t });
  const a = await startNode(t, server.url, 'node-a', ['node-a', 'node-b'], every);
  const earlier = await connect({ servers: server.url });
  t.teardown(() => earlier.close());
  // node-b of the earlier release answers every question in one message and knows nothing of parts.
  earlier.subscribe('svc.scatter.node-b', {
    callback: (_, msg) => void msg.respond(reply(agent(every.slice(10, 12)))),
  });
  await earlier.flush();

  const answer = await a.ask();
  t.equal(turns(answer).length, 50);
  t.equal(answer.coverage.complete, true, 'its single-message answer is read');

  // node-b asks node-a the way it always did: one message back, which node-a's answer cannot fit.
  const asked = await earlier.request(
    'svc.scatter.node-a',
    enc.encode(JSON.stringify({ v, what: 'agent', params: [['id', 'ada']] })),
    { timeout: 2_000 },
  );
  t.equal(asked.headers?.get('Svc-Remote-Error'), '1', 'an error its release reads as a remote error');
  t.match(dec.decode(asked.data), /larger than one bus message \(1048576 bytes\) and the asker reads one/);
});
