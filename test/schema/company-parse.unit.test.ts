import t from 'tap';
import { MAX_YAML_ALIASES, parseCompanyJson, parseCompanyYaml } from '../../schema/index.js';

/** `n` anchors, each aliased once (so the expansion cap never bites). */
function aliasList(n: number): string {
  const anchors = Array.from({ length: n }, (_, i) => `a${i}: &a${i} x`);
  const aliases = Array.from({ length: n }, (_, i) => `*a${i}`);
  return `${anchors.join('\n')}\nb: [${aliases.join(', ')}]\n`;
}

t.test('an alias naming no anchor is a problem with its line, not a throw', async (t) => {
  t.match(parseCompanyYaml('name: Acme\nmission: *nope\n'), {
    ok: false,
    problems: [{ kind: 'invalid', message: 'an alias names no anchor defined before it', line: 2 }],
  });
  t.match(parseCompanyYaml('a: *later\nb: &later x\n'), { ok: false }, 'the anchor must come first');
});

t.test('an alias inside its own anchor (a cycle) is refused', async (t) => {
  for (const text of ['e: &x\n  <<: *x\n', 'e: &x [1, *x]\n', 'e: &x {k: {j: *x}}\n']) {
    t.match(
      parseCompanyYaml(text),
      { ok: false, problems: [{ kind: 'invalid', message: 'an alias refers to a node that contains it' }] },
      text,
    );
  }
  t.match(parseCompanyYaml('e: &x {k: 1}\nf: *x\n'), { ok: true, value: { f: { k: 1 } } }, 'a plain reuse');
});

t.test('up to 100 aliases parse; the 101st is refused at its line', async (t) => {
  t.equal(MAX_YAML_ALIASES, 100);
  t.match(parseCompanyYaml(aliasList(100)), { ok: true });
  t.match(parseCompanyYaml(aliasList(101)), {
    ok: false,
    problems: [{ kind: 'out_of_range', message: 'more than 100 aliases', line: 102 }],
  });
});

t.test('aliases that expand past the cap (a billion laughs) are refused', async (t) => {
  const rows = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (const [name, prev] of [
    ['b', 'a'],
    ['c', 'b'],
    ['d', 'c'],
  ] as const)
    rows.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  t.match(parseCompanyYaml(rows.join('\n')), {
    ok: false,
    problems: [{ kind: 'out_of_range', message: 'aliases expand to more than 100 nodes' }],
  });
});

t.test('YAML nested past 64 levels is refused before composing, in flow and block style', async (t) => {
  const flow = (n: number) => `e: ${'['.repeat(n)}${']'.repeat(n)}\n`;
  t.match(parseCompanyYaml(flow(63)), { ok: true }, 'root map plus 63 lists is 64 levels');
  t.match(parseCompanyYaml(flow(64)), {
    ok: false,
    problems: [{ kind: 'out_of_range', message: 'nested deeper than 64 levels of maps and lists', line: 1 }],
  });
  const started = Date.now();
  t.match(parseCompanyYaml(flow(2_000_000)), { ok: false }, 'two million levels: a problem, not a crash');
  t.ok(Date.now() - started < 1_000, 'stopped at the limit, not after parsing all of it');
  const block = Array.from({ length: 70 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x\n';
  t.match(parseCompanyYaml(block), { ok: false, problems: [{ kind: 'out_of_range', line: 65 }] });
  t.match(parseCompanyYaml('- '.repeat(100_000) + 'x'), { ok: false }, 'compact nested lists');
});

t.test('an alias that grafts a deep anchor under a deep key is measured after expansion', async (t) => {
  const deep = (n: number) => '{k: '.repeat(n) + '1' + '}'.repeat(n);
  const text = `a: &a ${deep(40)}\nb: ${deep(30).replace('1', '*a')}\n`;
  const parsed = parseCompanyYaml(text);
  t.match(parsed, { ok: false, problems: [{ kind: 'out_of_range', path: /^b(\.k)+$/, line: Number }] });
  if (!parsed.ok) t.equal(parsed.problems[0]?.segments.length, 64, 'the first map past the limit');
});

t.test('YAML syntax problems name the code and line and quote nothing', async (t) => {
  const parsed = parseCompanyYaml('name: Acme\ntoken: "sk-secret-unterminated\n');
  t.match(parsed, { ok: false, problems: [{ kind: 'invalid', message: /^YAML: /, line: Number }] });
  t.notMatch(JSON.stringify(parsed), /sk-secret/);
});

t.test('an unquoted cron starting with * is one problem at its line that says to quote it', async (t) => {
  for (const cron of [
    '*/5 * * * *',
    '* * * * *',
    '0 * * * * *\n        task: t\n      - name: z\n        cron: * 9 * * 1',
  ]) {
    const text = `name: Acme\nroles:\n  - name: Ivy\n    schedules:\n      - name: y\n        cron: ${cron}\n        task: t\n`;
    const parsed = parseCompanyYaml(text);
    if (parsed.ok) {
      t.fail(`${cron}: parsed`);
      continue;
    }
    const line = text.split('\n').findIndex((l) => /cron: \*/.test(l)) + 1;
    t.same(
      parsed.problems.map((p) => [p.line, p.kind]),
      [[line, 'invalid']],
      `${cron}: one problem, not one per *`,
    );
    t.match(parsed.problems[0]?.message, /quote a value that starts with `\*`/, 'says what to do');
  }
});

t.test('JSON nested past 64 levels is refused from the raw text, with the line', async (t) => {
  const body = (n: number) => `{"e":\n${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
  t.match(parseCompanyJson(body(64)), { ok: true });
  t.match(parseCompanyJson(body(65)), {
    ok: false,
    problems: [{ kind: 'out_of_range', message: 'nested deeper than 64 levels of maps and lists', line: 2 }],
  });
  t.match(parseCompanyJson(body(1_000_000)), { ok: false });
});

t.test('an unparseable JSON body names the line and never quotes the text', async (t) => {
  const parsed = parseCompanyJson('{"name": "Acme",\n "token": sk-live-123}');
  t.match(parsed, { ok: false, problems: [{ kind: 'invalid', message: 'JSON: not parseable' }] });
  t.notMatch(JSON.stringify(parsed), /sk-live/);
  t.match(parseCompanyJson('{"a":1,\n}'), { ok: false, problems: [{ line: 2 }] });
  t.match(parseCompanyJson('{"name": '), {
    ok: false,
    problems: [{ message: 'JSON: the text ends inside the document' }],
  });
});

t.test(
  'a JSON key repeated in one object is refused at its path and line, not silently dropped',
  async (t) => {
    const text = '{\n  "name": "Acme",\n  "roles": [{"name": "a"}, {"name": "b",\n    "name": "c"}]\n}';
    t.same(parseCompanyJson(text), {
      ok: false,
      problems: [
        {
          path: 'roles[1].name',
          segments: ['roles', 1, 'name'],
          kind: 'invalid',
          message: 'JSON: a key appears twice in one object (the first value would be lost)',
          line: 4,
        },
      ],
    });
    t.match(parseCompanyJson('{"a": {"x": 1}, "b": {"x": 2}}'), { ok: true }, 'equal names in two objects');
    t.match(
      parseCompanyJson('{"k": "\\"x\\": 1, \\"k\\": 2"}'),
      { ok: true },
      'a quoted key inside a string',
    );
    t.match(
      parseCompanyJson('{"a\\u0062": 1, "ab": 2}'),
      { ok: false, problems: [{ path: 'ab' }] },
      'names compare unescaped, as JSON.parse compares them',
    );
    t.match(parseCompanyJson('[[1, {"z": 1}], {"y": [2, 3], "y": 0}]'), {
      ok: false,
      problems: [{ segments: [1, 'y'] }],
    });
  },
);

t.test('a YAML value with no JSON form is refused at its path and line, never stored mangled', async (t) => {
  // Stored as JSON, a !!binary became {"0": 104, ...}, a !!set or a !!timestamp {} and .inf null.
  const text = [
    'name: Acme',
    'extensions:',
    '  x:',
    '    b: !!binary aGVsbG8=',
    '    s: !!set {a, b}',
    '    o: !!omap [{a: 1}]',
    '    t: !!timestamp 2020-01-01',
    '    n: [1, .inf, -.inf, .nan]',
    '',
  ].join('\n');
  const parsed = parseCompanyYaml(text);
  t.equal(parsed.ok, false);
  const problems = parsed.ok ? [] : parsed.problems;
  t.same(
    problems.map((p) => [p.path, p.kind, p.line]),
    [
      ['extensions.x.b', 'shape', 4],
      ['extensions.x.s', 'shape', 5],
      ['extensions.x.o', 'shape', 6],
      ['extensions.x.t', 'shape', 7],
      ['extensions.x.n[1]', 'shape', 8],
      ['extensions.x.n[2]', 'shape', 8],
      ['extensions.x.n[3]', 'shape', 8],
    ],
  );
  t.notMatch(JSON.stringify(problems), /aGVsbG8|2020/, 'no value quoted');
  t.match(parseCompanyYaml('name: !!str 5\ntoken_budget: !!int "7"\nmission: 2020-01-01\n'), {
    ok: true,
    value: { name: '5', token_budget: 7, mission: '2020-01-01' },
  });
});
