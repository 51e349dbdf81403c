/**
 * A JSON body with a syntax error names where it breaks, as a YAML one does: `line` and `column` of the
 * first character the grammar (RFC 8259) does not take there, and what it expected, never the text.
 */
import t from 'tap';
import { parseCompanyJson } from '../../schema/index.js';

const problemOf = (text: string) => {
  const parsed = parseCompanyJson(text);
  if (parsed.ok) throw new Error('parsed');
  return parsed.problems[0]!;
};

t.test('a JSON syntax error names its line and column and what was expected', async (t) => {
  const cases: Array<[string, number, number, RegExp]> = [
    ['{"name": "Acme",\n "token": sk-live-123}', 2, 11, /expected a value/],
    ['{"a":1,\n}', 2, 1, /expected a key/],
    ['{\n  "name": "Acme"\n  "mission": "x"\n}', 3, 3, /expected `,` or `}`/],
    ['{"roles": [1 2]}', 1, 14, /expected `,` or `]`/],
    ['{"name" "Acme"}', 1, 9, /expected `:`/],
    ["{'name': 1}", 1, 2, /expected a key/],
    ['{"a": 1} x', 1, 10, /expected the end of the text/],
    ['{"a": tru}', 1, 7, /expected a value/],
    ['{"a": 01}', 1, 8, /expected `,` or `}`/],
    ['{"a": 1.}', 1, 9, /expected a digit/],
    ['{"a": -}', 1, 8, /expected a digit/],
    ['{"a": "x\\qy"}', 1, 9, /escape/],
    ['{"a": "\\u12G4"}', 1, 12, /escape/],
    ['{"a": "line\nbreak"}', 1, 12, /control character|line break/],
    ['', 1, 1, /ends/],
    ['{"name": ', 1, 10, /ends inside the document/],
    ['{"a": "open', 1, 12, /ends inside the document/],
    ['{"café": 1,, "b": 2}', 1, 12, /expected a key/],
  ];
  for (const [text, line, column, message] of cases) {
    const problem = problemOf(text);
    t.match(
      problem,
      { path: '', kind: 'invalid', line, column, message },
      `${JSON.stringify(text)} at ${line}:${column}`,
    );
    t.match(problem.message, /^JSON: /);
  }
});

t.test('a JSON syntax problem never quotes the text', async (t) => {
  const secret = 'sk-live-0123456789abcdef';
  for (const text of [
    `{"token": ${secret}}`,
    `{"token": "${secret}" "x": 1}`,
    `{"token": "${secret}\\x"}`,
    `{${secret}: 1}`,
    `{"token": "${secret}"}${secret}`,
  ]) {
    t.notMatch(JSON.stringify(parseCompanyJson(text)), /sk-live|0123/, text);
  }
});

t.test(
  'a deep or long broken body is refused by the depth check first; the scan does not recurse',
  async (t) => {
    t.match(parseCompanyJson(`{"a":\n${'['.repeat(100_000)}`), {
      ok: false,
      problems: [{ kind: 'out_of_range', line: 2 }],
    });
    // Within the depth limit and megabytes long: the position of a mistake at the very end.
    const long = `{"list": [${'1, '.repeat(1_000_000)}]}`;
    t.match(parseCompanyJson(long), {
      ok: false,
      problems: [{ line: 1, column: long.length - 1, message: /expected a value/ }],
    });
    const deep = `${'['.repeat(63)}{"a": 1,}${']'.repeat(63)}`;
    t.match(parseCompanyJson(deep), {
      ok: false,
      problems: [{ line: 1, column: 72, message: /expected a key/ }],
    });
  },
);
