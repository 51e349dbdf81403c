/**
 * Scatter reads over the bus's request/reply: each node answers its peers from its own questions; the
 * asker merges and names every node of the roster in `coverage`. Nodes here share one memory bus (the
 * protocol is what is under test; `test/scripts/fleet.*.e2e.test.ts` run it across processes).
 */
import { pino } from 'pino';
import t from 'tap';
import { openMemoryBus, type Bus } from '../../bus/index.js';
import { fleetMerges, scatterQuestions, type Question } from '../../http/index.js';

const logger = pino({ level: 'silent' });
const ctx = { actor: { id: 'ops', kind: 'operator' as const }, log: logger };

const arrivals = (accepted: number, at: string | null) => ({
  accepted,
  duplicates: 0,
  refused: 1,
  not_configured: 0,
  last_accepted_at: at,
  last_refused_at: null,
});

/** One node's own questions: its arrival counts and a page of events it has seen. */
function questionsOf(node: string, accepted: number, rows: { id: string; timestamp: string }[]) {
  return new Map<string, Question>([
    [
      'integrations',
      {
        guarded: false,
        answer: () => ({
          node,
          surfaces: [
            { surface: 'tracker-b', arrivals: arrivals(accepted, `2026-11-25T10:0${accepted}:00Z`) },
          ],
        }),
      },
    ],
    [
      'events',
      {
        guarded: false,
        answer: (params) => {
          const limit = Number(params.get('limit') ?? 2);
          return { rows: rows.slice(0, limit), exhausted: rows.length <= limit, next: null };
        },
      },
    ],
  ]);
}

function node(bus: Bus, id: string, roster: () => Promise<string[] | null>, version?: number) {
  return (accepted: number, rows: { id: string; timestamp: string }[]) => {
    const { questions, answerPeers } = scatterQuestions(questionsOf(id, accepted, rows), {
      bus,
      node: id,
      roster,
      logger,
      merges: fleetMerges,
      budgetMs: 300,
      ...(version !== undefined ? { version } : {}),
    });
    return { questions, responder: answerPeers() };
  };
}

const ev = (id: string, second: number) => ({ id, timestamp: `2026-11-25T10:00:0${second}.000Z` });

t.test(
  'every live node answers: the freshest arrivals stand and coverage names each, complete',
  async (t) => {
    const bus = await openMemoryBus({});
    const roster = () => Promise.resolve(['n1', 'n2', 'n3']);
    const n1 = node(bus, 'n1', roster)(2, []);
    const n2 = node(bus, 'n2', roster)(3, []);
    const n3 = node(bus, 'n3', roster)(5, []);
    const answer = (await n1.questions.get('integrations')!.answer(new URLSearchParams(), ctx)) as {
      surfaces: { arrivals: { accepted: number; refused: number; last_accepted_at: string } }[];
      coverage: unknown;
    };
    // Every node folds the same arrival records: the answers differ by lag only, never added up.
    t.equal(answer.surfaces[0]!.arrivals.accepted, 5, 'the freshest count any node has');
    t.equal(answer.surfaces[0]!.arrivals.refused, 1, 'one refusal the fleet saw, not one per node');
    t.equal(answer.surfaces[0]!.arrivals.last_accepted_at, '2026-11-25T10:05:00Z', 'the latest of any node');
    t.same(answer.coverage, {
      nodes: [
        { id: 'n1', answered: true },
        { id: 'n2', answered: true },
        { id: 'n3', answered: true },
      ],
      complete: true,
    });
    for (const n of [n1, n2, n3]) await n.responder.stop();
    await bus.close();
  },
);

t.test('a node that does not answer is named with its error and the answer is not complete', async (t) => {
  const bus = await openMemoryBus({});
  const n1 = node(bus, 'n1', () => Promise.resolve(['n1', 'gone']))(2, []);
  const answer = (await n1.questions.get('integrations')!.answer(new URLSearchParams(), ctx)) as {
    surfaces: { arrivals: { accepted: number } }[];
    coverage: { nodes: { id: string; answered: boolean; error?: string }[]; complete: boolean };
  };
  t.equal(answer.surfaces[0]!.arrivals.accepted, 2);
  t.equal(answer.coverage.complete, false);
  t.match(answer.coverage.nodes[1], { id: 'gone', answered: false, error: /no responder|no answer/ });
  await n1.responder.stop();
  await bus.close();
});

t.test('an unreadable roster leaves the answer incomplete', async (t) => {
  const bus = await openMemoryBus({});
  const n1 = node(bus, 'n1', () => Promise.reject(new Error('store unreachable')))(2, []);
  const answer = (await n1.questions.get('integrations')!.answer(new URLSearchParams(), ctx)) as {
    coverage: unknown;
  };
  t.same(answer.coverage, { nodes: [{ id: 'n1', answered: true }], complete: false });
  await n1.responder.stop();
  await bus.close();
});

t.test(
  'a node speaking another scatter-protocol version is named with that reason and not merged',
  async (t) => {
    const bus = await openMemoryBus({});
    const roster = () => Promise.resolve(['n1', 'n2']);
    const n1 = node(bus, 'n1', roster)(2, []);
    const n2 = node(bus, 'n2', roster, 2)(40, []);
    const answer = (await n1.questions.get('integrations')!.answer(new URLSearchParams(), ctx)) as {
      surfaces: { arrivals: { accepted: number } }[];
      coverage: { nodes: { id: string; answered: boolean; error?: string }[]; complete: boolean };
    };
    t.equal(answer.surfaces[0]!.arrivals.accepted, 2, 'nothing of the other version merged');
    t.match(answer.coverage.nodes[1], { id: 'n2', answered: false, error: /scatter protocol 2/ });
    t.equal(answer.coverage.complete, false);
    await n1.responder.stop();
    await n2.responder.stop();
    await bus.close();
  },
);

t.test(
  'a peer on another version is named by its version even when its answer has another shape',
  async (t) => {
    const bus = await openMemoryBus({});
    const n1 = node(bus, 'n1', () => Promise.resolve(['n1', 'n2']))(2, []);
    // A later protocol may change the reply's shape; only its `v` is certain to be there.
    const n2 = bus.reply('svc.scatter.n2', async () =>
      new TextEncoder().encode(JSON.stringify({ v: 2, result: { surfaces: [] } })),
    );
    const answer = (await n1.questions.get('integrations')!.answer(new URLSearchParams(), ctx)) as {
      coverage: { nodes: { id: string; answered: boolean; error?: string }[]; complete: boolean };
    };
    t.match(answer.coverage.nodes[1], { id: 'n2', answered: false, error: /scatter protocol 2/ });
    t.equal(answer.coverage.complete, false);
    await n1.responder.stop();
    await n2.stop();
    await bus.close();
  },
);

t.test('history pages are joined newest first, one row per id, cut to the page size', async (t) => {
  const bus = await openMemoryBus({});
  const roster = () => Promise.resolve(['n1', 'n2']);
  // n2 lags: it has not seen e3 yet; both saw e2 and e1.
  const n1 = node(bus, 'n1', roster)(0, [ev('e3', 3), ev('e2', 2), ev('e1', 1)]);
  const n2 = node(bus, 'n2', roster)(0, [ev('e2', 2), ev('e1', 1)]);
  const page = (await n2.questions.get('events')!.answer(new URLSearchParams({ limit: '2' }), ctx)) as {
    rows: { id: string }[];
    exhausted: boolean;
    next: unknown;
  };
  t.same(
    page.rows.map((r) => r.id),
    ['e3', 'e2'],
    'the lagging node answers with its peer’s newer row',
  );
  t.equal(page.exhausted, false);
  t.same(page.next, { before_time: '2026-11-25T10:00:02.000000000Z', before_id: 'e2' });
  const all = (await n2.questions.get('events')!.answer(new URLSearchParams({ limit: '5' }), ctx)) as {
    rows: { id: string }[];
    exhausted: boolean;
    next: unknown;
  };
  t.same(
    all.rows.map((r) => r.id),
    ['e3', 'e2', 'e1'],
    'no row twice',
  );
  t.equal(all.exhausted, true);
  t.equal(all.next, null);
  await n1.responder.stop();
  await n2.responder.stop();
  await bus.close();
});

t.test(
  'history pages of several nodes are ordered by instant whatever the encoding, with a UTC cursor',
  async (t) => {
    const bus = await openMemoryBus({});
    const roster = () => Promise.resolve(['n1', 'n2']);
    // Newest first by instant: 14:45Z, 14:40Z (written +01:00), 14:30Z (written +02:00); as text the
    // last would sort first.
    const rows = [
      { id: 'e2', timestamp: '2026-12-03T14:45:00Z' },
      { id: 'e1', timestamp: '2026-12-03T15:40:00+01:00' },
      { id: 'e6', timestamp: '2026-12-03T16:30:00+02:00' },
    ];
    const n1 = node(bus, 'n1', roster)(0, rows);
    const n2 = node(bus, 'n2', roster)(0, rows.slice(1));
    const page = (await n2.questions.get('events')!.answer(new URLSearchParams({ limit: '2' }), ctx)) as {
      rows: { id: string }[];
      next: unknown;
    };
    t.same(
      page.rows.map((r) => r.id),
      ['e2', 'e1'],
    );
    t.same(page.next, { before_time: '2026-12-03T14:40:00.000000000Z', before_id: 'e1' });
    await n1.responder.stop();
    await n2.responder.stop();
    await bus.close();
  },
);

t.test('a node alone answers its own page, order and cursor untouched', async (t) => {
  const bus = await openMemoryBus({});
  const rows = [
    { id: 'e5', timestamp: 'not a time' },
    { id: 'e2', timestamp: '2026-12-03T14:45:00Z' },
    { id: 'e1', timestamp: '2026-12-03T15:40:00+01:00' },
  ];
  const n1 = node(bus, 'n1', () => Promise.resolve(['n1']))(0, rows);
  const page = (await n1.questions.get('events')!.answer(new URLSearchParams({ limit: '3' }), ctx)) as {
    rows: { id: string }[];
  };
  t.same(
    page.rows.map((r) => r.id),
    ['e5', 'e2', 'e1'],
  );
  await n1.responder.stop();
  await bus.close();
});
