import t from 'tap';
import { pino } from 'pino';
import {
  createToolRouter,
  createToolServerManager,
  memoryTools,
  orgDirectoryFrom,
  orgTools,
  type EventSink,
  type MemoryRow,
  type Need,
  type PersonalMemory,
  type ToolContext,
} from '../../../actors/index.js';
import { Company, EventRecord, ToolEntry, type RoutedToolResult } from '../../../schema/index.js';

const logger = pino({ level: 'silent' });
const ctx: ToolContext = {
  seat: 'ada',
  agent_id: '6c1e0a8e-0000-5000-8000-000000000001',
  turn_id: 'turn-1',
  trace: { trace_id: 'a'.repeat(32), parent_span_id: 'b'.repeat(16) },
};

const company = Company.parse({
  name: 'Acme',
  roles: [
    { name: 'Ada', goal: 'Ship the release', responsibilities: ['release notes'] },
    {
      name: 'Grace Hopper',
      handle: 'grace',
      kind: 'human',
      email: 'grace@example.com',
      availability: 'weekdays',
      contact: { chat_user_id: 'U-GRACE', operator_id: 'grace-token' },
    },
  ],
  units: [
    {
      name: 'eng',
      type: 'department',
      lead: 'grace',
      mcp_env: { gh: { GH_TOKEN: 'unit-secret-token' } },
      children: [
        {
          name: 'platform',
          type: 'team',
          roles: [
            {
              name: 'Backend Engineer',
              goal: 'Keep the API fast',
              integrations: { chat: { bot_token: 'xoxb-secret' } },
              llm: 'main',
            },
            { name: 'Linus', kind: 'human', contact: { chat_user_id: 'U-LINUS' } },
            { name: 'Lin', kind: 'human', contact: { chat_user_id: 'U-LIN' } },
          ],
        },
      ],
    },
  ],
});

function harness(now = new Date('2026-01-10T12:00:00Z')) {
  const rows: Array<MemoryRow & { agent: string }> = [];
  const memory: PersonalMemory = {
    async remember(agent, row) {
      rows.push({ ...row, agent });
    },
    // A plain store: newest first, substring query, no expiry filter (the tool applies it).
    async recall(agent, q) {
      return rows
        .filter((r) => r.agent === agent && (q.query === null || r.content.includes(q.query)))
        .reverse();
    },
    async forget() {
      return 'unknown';
    },
  };
  const events: EventRecord[] = [];
  const sink: EventSink = {
    async publish(event) {
      events.push(EventRecord.parse(event));
    },
  };
  const needs: Array<{ seat: string; need: Need }> = [];
  let clock = now;
  const tools = [
    ...memoryTools({ memory, events: sink, now: () => clock }),
    ...orgTools({
      org: orgDirectoryFrom(() => company),
      needs: {
        recordNeed: async (seat, need) => ({ recorded: true, open: needs.push({ seat, need }) }),
        // Open questions are the recorded ones not yet withdrawn.
        withdrawNeed: async (seat, id) => {
          const at = needs.findIndex((n) => n.seat === seat && n.need.id === id);
          if (at >= 0) needs.splice(at, 1);
          return at >= 0;
        },
      },
      events: sink,
      now: () => clock,
    }),
  ];
  const servers = createToolServerManager({ logger, resolve: () => undefined });
  const router = createToolRouter({ builtins: tools, servers, logger });
  const call = (name: string, args: unknown): Promise<RoutedToolResult> =>
    router.call(ctx, { name, arguments: args });
  return {
    rows,
    events,
    needs,
    router,
    call,
    advance: (ms: number) => (clock = new Date(clock.getTime() + ms)),
  };
}

const text = (r: RoutedToolResult) => r.content.map((p) => p.text).join('');

t.test('the catalogue lists every builtin with source, annotations and an input schema', async (t) => {
  const { router } = harness();
  const entries = router.catalogue();
  t.same(
    entries.map((e) => e.name),
    ['memory_remember', 'memory_recall', 'memory_forget', 'org_lookup', 'ask_human', 'withdraw_question'],
  );
  for (const entry of entries) {
    t.ok(ToolEntry.safeParse(entry).success, `${entry.name} is a catalogue entry`);
    t.equal(entry.source, 'builtin');
    t.equal(entry.input_schema['type'], 'object');
    t.notOk('$schema' in entry.input_schema);
  }
  const remember = entries[0]!;
  t.same((remember.input_schema as { required: string[] }).required, ['content']);
  t.equal(remember.delivers, 'personal_memory');
  t.equal(entries[4]!.delivers, 'needs');
  t.equal(entries[1]!.annotations['readOnlyHint'], true);
  t.same(router.toolsFor('ada'), entries);
});

t.test('memory_remember keeps long and short notes; recall hides expired ones unless asked', async (t) => {
  const h = harness();
  const long = await h.call('memory_remember', {
    content: 'The release train leaves on Thursdays',
    metadata: { topic: 'release' },
  });
  t.equal(long.is_error, false);
  t.equal(long.source, 'builtin');
  t.match(text(long), /^Remembered as [0-9a-f-]{36}\.$/);
  const short = await h.call('memory_remember', {
    content: 'Waiting on Grace for the release date',
    kind: 'short',
    ttl_seconds: 3600,
  });
  t.match(text(short), /until 2026-01-10T13:00:00.000Z/);
  t.same(
    h.rows.map((r) => [r.kind, r.ttl_until, r.agent]),
    [
      ['long', null, ctx.agent_id],
      ['short', '2026-01-10T13:00:00.000Z', ctx.agent_id],
    ],
  );

  const recalled = JSON.parse(text(await h.call('memory_recall', { query: 'release' })));
  t.equal(recalled.length, 2);
  t.same(recalled[0], {
    id: h.rows[1]!.id,
    kind: 'short',
    content: 'Waiting on Grace for the release date',
    metadata: {},
    ttl_until: '2026-01-10T13:00:00.000Z',
    expired: false,
  });
  t.notOk('expired' in recalled[1], 'long rows carry no expired flag');

  h.advance(3_600_000);
  const after = JSON.parse(text(await h.call('memory_recall', {}))) as MemoryRow[];
  t.same(
    after.map((r) => r.kind),
    ['long'],
    'an expired short note is not recalled',
  );
  const all = JSON.parse(
    text(await h.call('memory_recall', { include_expired: true, kind: 'short' })),
  ) as Array<{
    expired: boolean;
  }>;
  t.same(
    all.map((r) => r.expired),
    [true],
  );
  t.equal(text(await h.call('memory_recall', { query: 'nothing like this' })), 'No notes match.');

  t.same(
    h.events.map((e) => e.type),
    ['memory_remembered', 'memory_remembered'],
  );
  const event = h.events[1]!;
  t.match(event, {
    category: 'learning',
    source: 'seat/ada',
    actor: 'ada',
    agent_id: 'ada',
    trace_id: ctx.trace!.trace_id,
    parent_span_id: ctx.trace!.parent_span_id,
  });
  t.same(event.payload, {
    memory_id: h.rows[1]!.id,
    kind: 'short',
    ttl_until: '2026-01-10T13:00:00.000Z',
    content_chars: 37,
    turn_id: 'turn-1',
  });
});

t.test('bad arguments are a readable tool error and reach nothing', async (t) => {
  const h = harness();
  const cases: Array<[string, unknown]> = [
    ['memory_remember', {}],
    ['memory_remember', { content: '   ' }],
    ['memory_remember', { content: 'x', kind: 'long', ttl_seconds: 60 }],
    ['memory_remember', { content: 'x', kind: 'short', ttl_seconds: 5 }],
    ['memory_remember', { content: 'x'.repeat(4001) }],
    ['memory_remember', { content: 'x', surprise: true }],
    ['memory_recall', { limit: 0 }],
    ['org_lookup', { query: '' }],
    ['ask_human', { to: 'grace' }],
  ];
  for (const [name, args] of cases) {
    const result = await h.call(name, args);
    t.equal(result.is_error, true, `${name} ${JSON.stringify(args).slice(0, 60)}`);
    t.match(text(result), new RegExp(`^invalid arguments for ${name}`));
  }
  t.equal(h.rows.length, 0);
  t.equal(h.events.length, 0);
  const notACall = await h.router.call(ctx, { arguments: {} });
  t.equal(notACall.is_error, true);
  const unknown = await h.call('no_such_tool', {});
  t.match(unknown, { is_error: true, source: null });
});

t.test('org_lookup finds a colleague by handle, name or role with public fields only', async (t) => {
  const h = harness();
  const byHandle = JSON.parse(text(await h.call('org_lookup', { query: '@grace' })));
  t.same(byHandle, [
    {
      handle: 'grace',
      name: 'Grace Hopper',
      kind: 'human',
      unit: null,
      lead_of: ['eng', 'platform'],
      goal: null,
      responsibilities: [],
      manages: [],
      availability: 'weekdays',
    },
  ]);
  const byRole = JSON.parse(text(await h.call('org_lookup', { query: 'backend engineer' })));
  t.match(byRole, [
    { handle: 'backend-engineer', unit: 'platform', kind: 'agent', goal: 'Keep the API fast' },
  ]);
  const byWords = JSON.parse(text(await h.call('org_lookup', { query: 'release' }))) as Array<{
    handle: string;
  }>;
  t.same(
    byWords.map((c) => c.handle),
    ['ada'],
  );
  t.equal(text(await h.call('org_lookup', { query: 'nobody-here' })), 'No colleague matches "nobody-here".');
  const everything = text(await h.call('org_lookup', { query: 'e' }));
  for (const secret of [
    'U-GRACE',
    'grace-token',
    'grace@example.com',
    'xoxb-secret',
    'unit-secret-token',
    'main',
    'U-LINUS',
  ])
    t.notMatch(everything, secret, `no ${secret} in an answer`);
});

t.test('ask_human records a need and an event, and sends nothing', async (t) => {
  const h = harness();
  const result = await h.call('ask_human', {
    to: 'Grace Hopper',
    question: 'Can we ship on Thursday?',
    urgency: 'high',
  });
  t.equal(result.is_error, false);
  t.match(text(result), /Grace Hopper \(grace\); nothing was sent/);
  t.match(text(result), `question id ${h.needs[0]?.need.id}`, 'the answer names the question id');
  t.equal(h.needs.length, 1);
  const { seat, need } = h.needs[0]!;
  t.equal(seat, 'ada');
  t.match(need, {
    to: 'grace',
    question: 'Can we ship on Thursday?',
    context: null,
    urgency: 'high',
    turn_id: 'turn-1',
    asked_at: '2026-01-10T12:00:00.000Z',
  });
  t.equal(h.events.length, 1);
  t.match(h.events[0], {
    type: 'human_asked',
    category: 'a2a',
    actor: 'ada',
    agent_id: 'ada',
    payload: { need_id: need.id, to: 'grace', question: 'Can we ship on Thursday?', urgency: 'high' },
  });
  t.notMatch(JSON.stringify(h.events[0]), 'U-GRACE', 'no contact identity in the event');

  const agent = await h.call('ask_human', { to: 'backend-engineer', question: 'q' });
  t.match(agent, { is_error: true });
  t.match(text(agent), /is an agent/);
  const ambiguous = await h.call('ask_human', { to: 'lin', question: 'q' });
  t.equal(ambiguous.is_error, false, 'an exact handle wins over partial matches');
  const several = await h.call('ask_human', { to: 'li', question: 'q' });
  t.match(text(several), /several people: Linus \(linus\), Lin \(lin\)/);
  const nobody = await h.call('ask_human', { to: 'zed', question: 'q' });
  t.match(text(nobody), /No human colleague matches "zed"/);
  t.equal(h.needs.length, 2, 'refused asks record nothing');
});

t.test('withdraw_question closes an open question by its id, once', async (t) => {
  const h = harness();
  await h.call('ask_human', { to: 'grace', question: 'Ship Thursday?' });
  const id = h.needs[0]!.need.id;
  const withdrawn = await h.call('withdraw_question', { id });
  t.equal(withdrawn.is_error, false);
  t.match(text(withdrawn), `Withdrew question ${id}`);
  t.equal(h.needs.length, 0);
  const again = await h.call('withdraw_question', { id });
  t.equal(again.is_error, true, 'a question not open is a tool error');
  t.match(text(again), /No open question has the id/);
});

t.test('a builtin called after the turn was cut does not run and answers cancelled', async (t) => {
  const h = harness();
  const cut = new AbortController();
  cut.abort('scheduled_timeout: the deadline passed');
  const result = await h.router.call(
    { ...ctx, signal: cut.signal },
    { name: 'memory_remember', arguments: { content: 'never kept' } },
  );
  t.same(result, {
    content: [
      { type: 'text', text: 'tool memory_remember was cancelled: scheduled_timeout: the deadline passed' },
    ],
    is_error: true,
    source: 'builtin',
    server: null,
  });
  t.equal(h.rows.length, 0, 'nothing was remembered');
  t.equal(h.events.length, 0);
});

t.test('a call needs a name and an arguments object; absent arguments are none', async (t) => {
  const h = harness();
  const refused = 'a tool call needs a name and an arguments object';
  for (const raw of [
    null,
    'org_lookup',
    { name: '', arguments: {} },
    { name: 'org_lookup', arguments: [] },
    { name: 'org_lookup', arguments: new Date(0) },
    { name: 'org_lookup', arguments: 'query' },
  ]) {
    const result = await h.router.call(ctx, raw);
    t.match(result, { is_error: true, source: null }, JSON.stringify(raw) ?? 'undefined');
    t.equal(text(result), refused);
  }
  const none = await h.router.call(ctx, { name: 'org_lookup' });
  t.match(text(none), /^invalid arguments for org_lookup/, 'no arguments reach the tool as {}');
  const bare = Object.create(null) as Record<string, unknown>;
  bare['query'] = '@grace';
  const found = await h.router.call(ctx, { name: 'org_lookup', arguments: bare });
  t.equal(found.is_error, false, 'an object without a prototype is an arguments object');
  t.match(JSON.parse(text(found)), [{ handle: 'grace' }]);
});
