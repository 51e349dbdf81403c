import t from 'tap';
import { formatProblems, parseTierA, type Problem } from '../../schema/index.js';

const problemsOf = (text: string, env: Record<string, string> = {}): Problem[] => {
  const result = parseTierA(text, { env, cwd: '/srv/svc' });
  return result.ok ? [] : result.problems;
};
const where = (p: Problem): string => `${p.path}@${p.line}:${p.column}`;

t.test('a Tier A shape problem carries the line and column of the key it names', async (t) => {
  const problems = problemsOf(
    ['debug: maybe', 'providers:', '  queue: {type: kafka}', 'api: {port: 70000, surprise: 1}'].join('\n'),
  );
  t.same(problems.map(where).sort(), [
    'api.port@4:7',
    'api.surprise@4:20',
    'debug@1:1',
    'providers.queue.type@3:11',
  ]);
});

t.test('a rule between fields points at the field it names, or its nearest written parent', async (t) => {
  const problems = problemsOf(
    [
      'providers:',
      '  queue:',
      '    type: jetstream',
      'api:',
      '  auth:',
      '    tokens:',
      '      - {id: ops, token: "${NOPE}"}',
      '      - {id: ops, token: x-0123456789abcdef}',
    ].join('\n'),
  );
  t.same(problems.map(where).sort(), [
    'api.auth.tokens[0].token@7:19',
    'api.auth.tokens[1].id@8:10',
    // `url` is not written: the problem points at the `queue` it belongs in.
    'providers.queue.url@2:3',
  ]);
});

t.test('an unknown key deep in a list points at that key', async (t) => {
  const problems = problemsOf('secrets:\n  keys:\n    - id: k1\n      matrial: x\n');
  const typo = problems.find((p) => p.path === 'secrets.keys[0].matrial');
  t.match(typo, { line: 4, column: 7, message: /did you mean `material`/ });
});

t.test('one YAML mistake is one problem, at its line and column, not a cascade', async (t) => {
  // A key indented one space too far: the parser reports it three times over from the same line.
  const indent = problemsOf('api:\n  port: 1\n  host: a\n host2: b\n  x: 1\n');
  t.equal(indent.length, 1, 'one problem');
  t.match(indent[0], { path: '', line: 4, column: 1, message: /^YAML: / });
  const nested = problemsOf('api:\n  port: 8080\n   host: x\nnode: {id: a}\n');
  t.equal(nested.length, 1);
  t.match(nested[0], { line: 2 }, 'at the value the stray line continues');
  const quote = problemsOf('api:\n  port: "8080\ndebug: true\n');
  t.equal(quote.length, 1);
  t.match(quote[0], { message: /quote/ });
});

t.test('two separate YAML mistakes are two problems', async (t) => {
  const problems = problemsOf('api:\n\tport: 8080\nnode:\n\tid: a\n');
  t.same(
    problems.map((p) => p.line),
    [2, 4],
  );
  t.ok(problems.every((p) => /tab/i.test(p.message)));
});

t.test('a YAML problem never quotes the source text (it may hold a credential)', async (t) => {
  const problems = problemsOf('api:\n  auth: {tokens: [{id: a, token: "hunter2-secret\n');
  t.ok(problems.length >= 1);
  t.notOk(
    problems.some((p) => p.message.includes('hunter2')),
    'no message repeats the file',
  );
});

t.test('the terminal form names line and column', async (t) => {
  const text = formatProblems(problemsOf('api: {port: 70000}\n'));
  t.match(text, /^  1:7  api\.port: /);
});

t.test('a refused Tier A file lists its problems in file order, shape and rule problems mixed', async (t) => {
  const problems = problemsOf(
    [
      'providers:',
      '  queue: {type: kafka}',
      'api:',
      '  port: -5',
      '  auth:',
      '    tokens: [{id: a}]',
      'node:',
      '  roles: [wizard]',
      'debug: maybe',
    ].join('\n'),
  );
  const lines = problems.map((p) => p.line ?? Infinity);
  t.ok(problems.length >= 4, `${problems.length} problems`);
  t.same(
    lines,
    [...lines].sort((a, b) => a - b),
    lines.join(','),
  );
});
