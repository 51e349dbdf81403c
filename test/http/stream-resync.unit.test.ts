// A socket that lost frames to its bounded queue is made whole again once it reads, and no answer to one
// of its own questions is lost without a word (ops/events.md "Backpressure").
import { pino } from 'pino';
import t from 'tap';
import { StreamHub, type Question } from '../../http/index.js';
import { SectionRegistry, type PushMode } from '../../projections/index.js';

interface Frame {
  readonly kind: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames are read loosely in tests
  readonly data: any;
  readonly dropped?: number;
}

/** A socket whose send buffer is full while `stalled`; what it was sent lands in `frames`. */
function socket() {
  const frames: Frame[] = [];
  const ends: Array<[number, string]> = [];
  let stalled = false;
  return {
    frames,
    ends,
    stall: () => void (stalled = true),
    drain: () => void (stalled = false),
    sink: {
      send: (text: string | Uint8Array) => {
        frames.push(JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString()) as Frame);
        return 1;
      },
      bufferedAmount: () => (stalled ? 1_000_000 : 0),
      end: (code: number, reason: string) => void ends.push([code, reason]),
    },
  };
}

/** An `agents` section whose rows the test moves, each change pushed as an overlay. */
function agentsSection() {
  const rows: Record<string, { handle: string; turns: number }> = {};
  let push: (data: unknown, mode: PushMode) => void = () => undefined;
  return {
    section: {
      name: 'agents',
      current: () => structuredClone(rows),
      subscribe: (p: (data: unknown, mode: PushMode) => void) => ((push = p), () => undefined),
    },
    move(handle: string) {
      const row = { handle, turns: (rows[handle]?.turns ?? 0) + 1 };
      rows[handle] = row;
      push({ [handle]: row }, 'merge');
    },
  };
}

const big: Question = { guarded: false, answer: () => ({ rows: 'x'.repeat(2_000) }) };

function hubOf(limits: Record<string, number> = {}) {
  const sections = new SectionRegistry();
  const agents = agentsSection();
  sections.register(agents.section);
  const hub = new StreamHub({
    sections,
    questions: new Map([['big', big]]),
    logger: pino({ level: 'silent' }),
    limits: { maxQueue: 8, maxQueueBytes: 1 << 20, highWater: 1000, ...limits },
  });
  return { hub, sections, agents };
}

/** Lets the pushes of this turn reach the sockets and the questions asked be answered. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test(
  'a socket that dropped envelopes is sent a snapshot carrying the count once its queue drains, equal to the snapshot read then',
  async (t) => {
    const { hub, sections, agents } = hubOf();
    t.teardown(() => hub.close());
    const slow = socket();
    const fast = socket();
    const client = hub.attach(slow.sink, null, null);
    hub.attach(fast.sink, null, null);
    slow.stall();
    for (let i = 0; i < 30; i++) agents.move(`seat-${i % 5}`);
    await settle();
    t.equal(client.dropped, 22, 'past 8 the oldest were dropped');
    slow.drain();
    client.flush();
    const kinds = slow.frames.map((f) => f.kind);
    t.same(
      kinds,
      ['snapshot', ...Array<string>(8).fill('agents'), 'snapshot'],
      'what waited, then a snapshot',
    );
    const resync = slow.frames.at(-1)!;
    t.equal(resync.dropped, 22, 'the resync says how many envelopes were lost');
    t.same(resync.data, sections.snapshot(), 'and is the snapshot as read now');
    t.equal(slow.frames[0]!.dropped, undefined, 'the snapshot a socket opens with carries no count');
    client.flush();
    agents.move('seat-0');
    await settle();
    t.equal(slow.frames.filter((f) => f.kind === 'snapshot').length, 2, 'one resync per gap, not per drain');
    t.equal(slow.frames.at(-1)!.kind, 'agents', 'and then frames as usual');
    t.same(
      fast.frames.map((f) => f.kind),
      ['snapshot', ...Array<string>(31).fill('agents')],
      'a socket that kept up is sent no resync',
    );
  },
);

t.test(
  'a socket that drains but is still behind waits for its resync until its queue is empty',
  async (t) => {
    const { hub, agents } = hubOf();
    t.teardown(() => hub.close());
    const slow = socket();
    const client = hub.attach(slow.sink, null, null);
    slow.stall();
    for (let i = 0; i < 12; i++) agents.move('ada');
    await settle();
    client.flush();
    t.equal(slow.frames.length, 1, 'still stalled: nothing more is sent');
    slow.drain();
    client.flush();
    t.equal(slow.frames.filter((f) => f.kind === 'snapshot').length, 2);
    t.equal(slow.frames.at(-1)!.dropped, 4);
    t.equal(client.queued, 0);
  },
);

t.test(
  'an answer the queue sheds is replaced by a coded error for its query id, sent before what waited after it',
  async (t) => {
    const { hub, agents } = hubOf();
    t.teardown(() => hub.close());
    const slow = socket();
    const client = hub.attach(slow.sink, null, null);
    slow.stall();
    hub.receive(client, JSON.stringify({ kind: 'query', id: 1, what: 'big' }));
    await settle();
    for (let i = 0; i < 20; i++) agents.move('ada');
    hub.receive(client, JSON.stringify({ kind: 'query', id: 'two', what: 'big' }));
    await settle();
    slow.drain();
    client.flush();
    const answers = slow.frames.filter((f) => f.kind === 'result' || f.kind === 'error');
    t.same(
      answers.map((f) => [f.kind, f.data.id as unknown]),
      [
        ['error', 1],
        ['result', 'two'],
      ],
      'each question is answered once',
    );
    t.match(answers[0]!.data, {
      id: 1,
      what: 'big',
      error: 'query_failed',
      code: 'answer_dropped',
      status: 503,
    });
    t.equal(slow.frames[1]!.kind, 'error', 'the shed answer comes first: it was the oldest waiting');
    t.equal(slow.frames.at(-1)!.kind, 'snapshot', 'the events lost are made good by the resync');
    t.equal(slow.frames.at(-1)!.dropped, 13, 'the shed answer is no lost state and not counted there');
  },
);

t.test(
  'a socket with as many answers waiting as the cap is closed 1008 at the next, which settles every question it asked',
  async (t) => {
    const { hub } = hubOf({ maxAnswers: 4, maxQueue: 2 });
    t.teardown(() => hub.close());
    const slow = socket();
    const client = hub.attach(slow.sink, null, null);
    slow.stall();
    for (let id = 1; id <= 4; id++) hub.receive(client, JSON.stringify({ kind: 'query', id, what: 'big' }));
    await settle();
    t.same(slow.ends, [], 'four answers may wait');
    t.equal(client.answersWaiting, 4, 'two whole, two shed to their coded errors');
    hub.receive(client, JSON.stringify({ kind: 'query', id: 5, what: 'big' }));
    await settle();
    t.same(slow.ends, [[1008, 'too many unanswered queries']], 'the fifth closes the socket');
  },
);
