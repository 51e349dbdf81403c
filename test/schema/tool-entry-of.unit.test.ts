/**
 * `toolEntryOf` answers what `ToolEntry.safeParse` answers — the same entry, its keys in the same order, or
 * null where the schema refuses — whether the entry takes its hand-checked path or goes to the schema.
 */
import t from 'tap';
import { ToolEntry, toolEntryOf } from '../../schema/index.js';

const entry = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'files_read',
  description: 'Reads a file',
  source: 'mcp:files',
  annotations: { readOnlyHint: true, title: 'Read' },
  delivers: null,
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  ...over,
});

const withProto = (): Record<string, unknown> => {
  const annotations = JSON.parse('{"__proto__": {"polluted": true}, "title": "x"}') as Record<
    string,
    unknown
  >;
  return entry({ annotations });
};
const withSymbol = (): Record<string, unknown> =>
  entry({ input_schema: { type: 'object', [Symbol('s')]: 1 } });
const withHidden = (): Record<string, unknown> => {
  const input_schema: Record<string, unknown> = { type: 'object' };
  Object.defineProperty(input_schema, 'hidden', { value: 1, enumerable: false });
  return entry({ input_schema });
};
class Shaped {
  type = 'object';
}

const cases: Array<[string, unknown]> = [
  ['an MCP tool entry', entry()],
  ['a builtin entry naming where it delivers', entry({ source: 'builtin', delivers: 'needs' })],
  [
    'keys in another order',
    { input_schema: {}, delivers: null, annotations: {}, source: 'builtin', description: '', name: 'x' },
  ],
  ['an extra key (stripped)', entry({ extra: 1 })],
  ['a record with a constructor key', entry({ input_schema: { type: 'object', constructor: 'x' } })],
  ['a record with an own __proto__ key', withProto()],
  ['a record with a symbol key', withSymbol()],
  ['a record with a non-enumerable key', withHidden()],
  ['a record of a class', entry({ input_schema: new Shaped() })],
  [
    'a record with a null prototype',
    entry({ annotations: Object.assign(Object.create(null) as object, { a: 1 }) }),
  ],
  ['an array as a record', entry({ annotations: [] })],
  ['an empty name', entry({ name: '' })],
  ['a source of neither kind', entry({ source: 'mcp:' })],
  ['a source on two lines', entry({ source: 'mcp:a\nb' })],
  ['delivers missing', entry({ delivers: undefined })],
  ['a number as the description', entry({ description: 7 })],
  ['no entry at all', null],
  ['a string', 'files_read'],
];

for (const [what, value] of cases) {
  t.test(what, async (t) => {
    const parsed = ToolEntry.safeParse(value);
    const fast = toolEntryOf(value);
    if (!parsed.success) {
      t.equal(fast, null, 'refused as the schema refuses it');
      return;
    }
    t.same(fast, parsed.data, 'the schema’s entry');
    t.same(Object.keys(fast ?? {}), Object.keys(parsed.data), 'its keys in the schema’s order');
    t.same(JSON.stringify(fast), JSON.stringify(parsed.data), 'written as the schema’s entry is');
    t.not(fast?.input_schema, (value as Record<string, unknown>)['input_schema'], 'its records are copies');
  });
}
