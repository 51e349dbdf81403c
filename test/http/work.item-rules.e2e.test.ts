/**
 * Rules an item write is held to beyond its shape (ops/work-tracker.md "Writes"): real calendar dates,
 * a seat, label or link named once per list, a title of one line, no link to the item itself, links kept
 * by key, an estimate of 0 or more, and a change that changes nothing refused with a problem saying so.
 */
import t from 'tap';
import { Streams } from '../../bus/index.js';
import { OPS, call } from './fixtures/gateway-harness.js';
import { startWorkHarness } from './fixtures/work-harness.js';

type Json = Record<string, unknown>;

const send = (url: string, body: unknown, method = 'POST') =>
  call(url, {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const paths = (answer: { json?: Json | null }) =>
  ((answer.json?.problems as Json[] | undefined) ?? []).map((p) => p.path);

t.test('an impossible calendar date is refused with a problem naming the field', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Dated' });
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  for (const [body, path] of [
    [{ due_date: '2027-02-30' }, 'due_date'],
    [{ due_date: '2027-13-01' }, 'due_date'],
    [{ due_date: '2027-00-10' }, 'due_date'],
    [{ fields: { due: '2027-02-30' } }, 'fields.due'],
    [{ fields: { due: '2027-13-01' } }, 'fields.due'],
  ] as const) {
    const r = await send(`${w.base}/work/ENG-1`, body, 'PATCH');
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json?.error, 'validation_error', JSON.stringify(body));
    t.same(paths(r), [path], JSON.stringify(body));
  }
  const created = await send(`${w.base}/work`, { project: 'ENG', title: 'x', due_date: '2026-02-29' });
  t.equal(created.status, 400, '2026 is not a leap year');
  t.same(paths(created), ['due_date']);
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing appended');
  const leap = await send(
    `${w.base}/work/ENG-1`,
    { due_date: '2028-02-29', fields: { due: '2027-12-31' } },
    'PATCH',
  );
  t.equal(leap.status, 200, 'a real day is taken');
});

t.test(
  'a seat named twice in assignees, watchers or asked_of is refused, a problem per repeat',
  async (t) => {
    const w = await startWorkHarness(t);
    await send(`${w.base}/work`, { project: 'ENG', title: 'Shared' });
    const r = await send(
      `${w.base}/work/ENG-1`,
      { assignees: ['coder', 'coder'], watchers: ['ada', 'bob', 'ada', 'ada'], asked_of: ['bob', 'bob'] },
      'PATCH',
    );
    t.equal(r.status, 400);
    t.equal(r.json?.error, 'validation_error');
    t.same(paths(r), ['assignees.1', 'watchers.2', 'watchers.3', 'asked_of.1']);
    t.match(r.json?.problems, [
      { segments: ['assignees', 1], kind: 'conflict', message: /"coder" is named twice/ },
    ]);
    const created = await send(`${w.base}/work`, {
      project: 'ENG',
      title: 'x',
      assignees: ['coder', 'coder'],
    });
    t.equal(created.status, 400, 'on a create too');
    const item = await call(`${w.base}/work/ENG-1`);
    t.same(item.json?.assignees, [], 'nothing was assigned');
  },
);

t.test('a change that changes nothing is refused with a problem saying so', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Same' });
  for (const body of [{}, { title: 'Same' }]) {
    const r = await send(`${w.base}/work/ENG-1`, body, 'PATCH');
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.json?.error, 'validation_error');
    t.match(
      r.json?.problems,
      [{ path: '', segments: [], kind: 'invalid', message: /^changes nothing: / }],
      JSON.stringify(body),
    );
  }
  const view = await send(`${w.base}/work/views/saved`, { name: 'Mine', filter: { project: 'ENG' } });
  t.equal(view.status, 201);
  const id = (view.json?.view as Json).id as string;
  const same = await send(`${w.base}/work/views/saved/${id}`, { name: 'Mine' }, 'PATCH');
  t.equal(same.status, 400);
  t.equal(same.json?.error, 'validation_error');
  t.match(same.json?.problems, [{ path: '', message: /^changes nothing: name/ }]);
});

t.test('a title with control characters or a lone surrogate is refused, as a page title is', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Clean' });
  for (const title of ['two\nlines', 'nul\u0000', 'bell\u0007', 'lone \ud800 high', 'lone \udc00 low']) {
    const created = await send(`${w.base}/work`, { project: 'ENG', title });
    t.equal(created.status, 400, JSON.stringify(title));
    t.equal(created.json?.error, 'invalid_body');
    t.same(paths(created), ['title']);
    const patched = await send(`${w.base}/work/ENG-1`, { title }, 'PATCH');
    t.equal(patched.status, 400, JSON.stringify(title));
    t.same(paths(patched), ['title']);
  }
  const emoji = await send(`${w.base}/work/ENG-1`, { title: 'Ship it 🚀' }, 'PATCH');
  t.equal(emoji.status, 200, 'a surrogate pair is one character');
});

t.test(
  'a title with a C1 control, or a control at either end, is refused before it is trimmed',
  async (t) => {
    const w = await startWorkHarness(t);
    await send(`${w.base}/work`, { project: 'ENG', title: 'Clean' });
    const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
    for (const title of ['\u0085x', 'csi \u009b', '\u0080', '\tTabbed', 'Trailing\n', '\u0085 ']) {
      const created = await send(`${w.base}/work`, { project: 'ENG', title });
      t.equal(created.status, 400, JSON.stringify(title));
      t.same(paths(created), ['title'], JSON.stringify(title));
      const patched = await send(`${w.base}/work/ENG-1`, { title }, 'PATCH');
      t.equal(patched.status, 400, JSON.stringify(title));
      t.same(paths(patched), ['title'], JSON.stringify(title));
    }
    t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
    const spaced = await send(`${w.base}/work/ENG-1`, { title: '  Spaced  ' }, 'PATCH');
    t.equal(spaced.status, 200, 'spaces at the ends are still trimmed');
    t.equal((spaced.json?.item as Json | undefined)?.title, 'Spaced');
  },
);

t.test(
  'POST /work: a title with nothing visible is refused as the empty one, U+2028 at an end as \\n',
  async (t) => {
    const w = await startWorkHarness(t);
    const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
    const empty = await send(`${w.base}/work`, { project: 'ENG', title: ' ' });
    t.equal(empty.status, 400);
    for (const title of ['\u200b', '\u00ad\u2060\ufeff', ' \u0301 ', 'A\u2028', '\u2029A']) {
      const created = await send(`${w.base}/work`, { project: 'ENG', title });
      t.equal(created.status, 400, [...title].map((c) => `U+${c.codePointAt(0)!.toString(16)}`).join(' '));
      t.equal(created.json?.error, 'invalid_body');
      t.same(paths(created), ['title'], 'the problem names the title');
      if (!title.includes('A')) t.same(created.json?.problems, empty.json?.problems, 'as the empty title');
    }
    t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
  },
);

t.test('an item cannot link to itself', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'One' });
  await send(`${w.base}/work`, { project: 'ENG', title: 'Two' });
  for (const ref of ['ENG-2', 'eng-2']) {
    const r = await send(`${w.base}/work/ENG-2`, { links: [{ kind: 'blocks', item: ref }] }, 'PATCH');
    t.equal(r.status, 400, ref);
    t.equal(r.json?.error, 'validation_error');
    t.same(paths(r), ['links.0.item']);
  }
  const other = await send(`${w.base}/work/ENG-2`, { links: [{ kind: 'blocks', item: 'ENG-1' }] }, 'PATCH');
  t.equal(other.status, 200, 'another item may be linked');
});

t.test('a change of type keeps no custom field the new type does not allow', async (t) => {
  const w = await startWorkHarness(t);
  const bug = await send(`${w.base}/work`, {
    project: 'ENG',
    title: 'Crash',
    type: 'bug',
    fields: { severity: 'major' },
  });
  t.equal(bug.status, 201, JSON.stringify(bug.json));
  const created = await send(`${w.base}/work`, {
    project: 'ENG',
    title: 'Chore',
    type: 'task',
    fields: { severity: 'major' },
  });
  t.equal(created.status, 400, 'a task is not created with a severity');
  const retyped = await send(`${w.base}/work/ENG-1`, { type: 'task' }, 'PATCH');
  t.equal(retyped.status, 400, JSON.stringify(retyped.json));
  t.equal(retyped.json?.error, created.json?.error, 'refused as a create of that type is');
  t.same(retyped.json?.problems, created.json?.problems);
  const both = await send(`${w.base}/work/ENG-1`, { type: 'task', fields: {} }, 'PATCH');
  t.equal(both.status, 200, 'dropping the field with the change of type is taken');
  t.match((await call(`${w.base}/work/ENG-1`)).json, { type: 'task', fields: {} });
});

t.test(
  'labels and checklist text refuse control characters; bodies refuse NUL and lone surrogates only',
  async (t) => {
    const w = await startWorkHarness(t);
    await send(`${w.base}/work`, { project: 'ENG', title: 'Clean' });
    const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
    const refused: Array<[Json, string]> = [
      [{ labels: ['ok', 'a\u0000b'] }, 'labels.1'],
      [{ labels: ['tab\tlabel'] }, 'labels.0'],
      [{ labels: ['nel\u0085'] }, 'labels.0'],
      [{ labels: ['lone \ud800'] }, 'labels.0'],
      [{ checklist: [{ id: 'c1', text: 'two\nlines' }] }, 'checklist.0.text'],
      [{ checklist: [{ id: 'c\u0000', text: 'id' }] }, 'checklist.0.id'],
      [{ description: 'nul \u0000 inside' }, 'description'],
      [{ description: 'lone \udc00 low' }, 'description'],
      [{ fields: { component: 'a\u0000b' } }, 'fields.component'],
    ];
    for (const [body, path] of refused) {
      const created = await send(`${w.base}/work`, { project: 'ENG', title: 'New', ...body });
      t.equal(created.status, 400, `create ${JSON.stringify(body)}`);
      t.equal(created.json?.error, 'invalid_body');
      t.same(paths(created), [path]);
      const patched = await send(`${w.base}/work/ENG-1`, body, 'PATCH');
      t.equal(patched.status, 400, `update ${JSON.stringify(body)}`);
      t.same(paths(patched), [path]);
    }
    for (const body of ['nul\u0000', 'lone \ud800 high']) {
      const r = await send(`${w.base}/work/ENG-1/comments`, { body });
      t.equal(r.status, 400, `comment ${JSON.stringify(body)}`);
      t.equal(r.json?.error, 'invalid_body');
      t.same(paths(r), ['body']);
    }
    t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
    const kept = 'line one\n\tindented 🚀';
    const described = await send(`${w.base}/work/ENG-1`, { description: kept, labels: ['ui 🚀'] }, 'PATCH');
    t.equal(described.status, 200, JSON.stringify(described.json));
    t.match((await call(`${w.base}/work/ENG-1`)).json, { description: kept, labels: ['ui 🚀'] });
    const comment = await send(`${w.base}/work/ENG-1/comments`, { body: `first\n\tsecond` });
    t.equal(comment.status, 201, 'a comment keeps its tabs and line breaks');
    const thread = (await call(`${w.base}/work/comments?item=ENG-1`)).json?.comments as Json[];
    t.equal(thread[0]?.body, 'first\n\tsecond');
  },
);

t.test('an estimate is a number of hours, 0 or more: a negative one is refused at its path', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Sized' });
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const created = await send(`${w.base}/work`, { project: 'ENG', title: 'x', fields: { estimate: -5 } });
  t.equal(created.status, 400);
  t.equal(created.json?.error, 'validation_error');
  t.same(paths(created), ['fields.estimate']);
  const patched = await send(`${w.base}/work/ENG-1`, { fields: { estimate: -0.5 } }, 'PATCH');
  t.equal(patched.status, 400);
  t.equal(patched.json?.error, 'validation_error');
  t.same(paths(patched), ['fields.estimate']);
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
  const zero = await send(`${w.base}/work/ENG-1`, { fields: { estimate: 0 } }, 'PATCH');
  t.equal(zero.status, 200, 'no effort at all is an estimate');
  const catalogue = (await call(`${w.base}/work/catalogue`)).json?.fields as Json[];
  t.match(
    catalogue.find((f) => f.name === 'estimate'),
    { type: 'number', min: 0 },
    'the catalogue says so',
  );
});

t.test('a link names its target by the canonical key, however the write named it', async (t) => {
  const w = await startWorkHarness(t);
  const first = await send(`${w.base}/work`, { project: 'ENG', title: 'Target' });
  const id = String((first.json?.item as Json).id);
  const linked = await send(`${w.base}/work`, {
    project: 'ENG',
    title: 'Linked',
    links: [
      { kind: 'blocks', item: 'eng-1' },
      { kind: 'relates', item: id },
    ],
  });
  t.equal(linked.status, 201, JSON.stringify(linked.json));
  const links = (await call(`${w.base}/work/ENG-2`)).json?.links as Json[];
  t.same(
    links.map((l) => [l.kind, l.item, l.key]),
    [
      ['blocks', 'ENG-1', 'ENG-1'],
      ['relates', 'ENG-1', 'ENG-1'],
    ],
  );
  const history = (await call(`${w.base}/work/ENG-2`)).json?.history as Json[];
  t.match(history[0]?.fields, { links: { to: [{ item: 'ENG-1' }, { item: 'ENG-1' }] } }, 'recorded so');
  const same = await send(
    `${w.base}/work/ENG-2`,
    {
      links: [
        { kind: 'blocks', item: 'Eng-1' },
        { kind: 'relates', item: 'ENG-1' },
      ],
    },
    'PATCH',
  );
  t.equal(same.status, 400, 'the same links named another way change nothing');
  t.match(same.json?.problems, [{ path: '', message: /^changes nothing/ }]);
});

t.test('a label or a link named twice is refused, a problem per repeat, as a seat is', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Target' });
  await send(`${w.base}/work`, { project: 'ENG', title: 'Tagged', labels: ['ui'] });
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const body = {
    labels: ['ui', 'api', 'ui', 'ui'],
    links: [
      { kind: 'blocks', item: 'ENG-1' },
      { kind: 'relates', item: 'ENG-1' },
      { kind: 'blocks', item: 'eng-1' },
    ],
  };
  const created = await send(`${w.base}/work`, { project: 'ENG', title: 'Twice', ...body });
  t.equal(created.status, 400);
  t.equal(created.json?.error, 'validation_error');
  t.same(paths(created), ['labels.2', 'labels.3', 'links.2']);
  const patched = await send(`${w.base}/work/ENG-2`, body, 'PATCH');
  t.equal(patched.status, 400);
  t.same(paths(patched), ['labels.2', 'labels.3', 'links.2']);
  t.match(patched.json?.problems, [{ kind: 'conflict', message: /"ui" is named twice/ }]);
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
  const once = await send(`${w.base}/work/ENG-2`, { labels: ['ui', 'UI'] }, 'PATCH');
  t.equal(once.status, 200, 'labels differ by case: they are kept as written');
});

t.test('a checklist entry id named twice is refused at each repeat, naming the id', async (t) => {
  const w = await startWorkHarness(t);
  await send(`${w.base}/work`, { project: 'ENG', title: 'Listed' });
  const before = (await w.bus.streamInfo(Streams.Work)).lastSeq;
  const entry = (id: string, text: string) => ({ id, text, done: false, assignee: null });
  const checklist = [
    entry('spec', 'Write it'),
    entry('test', 'Test it'),
    entry('spec', 'Again'),
    entry('spec', 'More'),
  ];
  const created = await send(`${w.base}/work`, { project: 'ENG', title: 'Twice', checklist });
  t.equal(created.status, 400);
  t.equal(created.json?.error, 'validation_error');
  t.same(paths(created), ['checklist.2.id', 'checklist.3.id']);
  const patched = await send(`${w.base}/work/ENG-1`, { checklist }, 'PATCH');
  t.same(paths(patched), ['checklist.2.id', 'checklist.3.id']);
  t.match(patched.json?.problems, [{ kind: 'conflict', message: /checklist entry "spec" is named twice/ }]);
  t.equal((await w.bus.streamInfo(Streams.Work)).lastSeq, before, 'nothing written');
});
