import t from 'tap';
import { depthBeyond, jsonTextDepthBeyond, MAX_DOCUMENT_DEPTH, validateCompany } from '../../schema/index.js';

/** `levels` nested maps `{a: {a: … 'x'}}`, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

t.test('depth counts maps and lists on the deepest path; scalars add nothing', async (t) => {
  t.equal(depthBeyond('x', 0), null, 'a scalar has no depth');
  t.equal(depthBeyond({}, 1), null);
  t.same(depthBeyond({}, 0), []);
  t.equal(depthBeyond({ a: [1, { b: 2 }] }, 3), null);
  t.same(depthBeyond({ a: [1, { b: {} }] }, 3), ['a', 1, 'b'], 'the first container past the limit');
});

t.test('a value exactly at the limit passes and one level more is refused at its path', async (t) => {
  t.equal(depthBeyond(nested(64), 64), null);
  const beyond = depthBeyond(nested(65), 64);
  t.equal(beyond?.length, 64, 'path to the 65th map');
  t.ok(beyond?.every((s) => s === 'a'));
});

t.test('measuring a million levels neither recurses nor throws', async (t) => {
  t.equal(depthBeyond(nested(1_000_000), 64)?.length, 64);
  t.equal(depthBeyond(nested(1_000_000), 2_000_000), null);
});

t.test('a cycle is beyond any limit', async (t) => {
  const loop: Record<string, unknown> = {};
  loop['self'] = loop;
  t.same(depthBeyond(loop, 3), ['self', 'self', 'self']);
});

t.test('the JSON text scan counts brackets outside strings only', async (t) => {
  t.equal(jsonTextDepthBeyond('{"a": "[[[[{{{{"}', 1), null, 'brackets inside a string');
  t.equal(jsonTextDepthBeyond('{"a": "\\"[[[["}', 1), null, 'an escaped quote does not end the string');
  t.equal(jsonTextDepthBeyond('{"a": "\\\\", "b": [[]]}', 2), 18, 'an escaped backslash does');
  t.equal(jsonTextDepthBeyond('[[]][[]]', 2), null, 'siblings do not add up');
  t.equal(jsonTextDepthBeyond('[[[]]]', 2), 2);
  const deep = '{"a":'.repeat(5_000_000) + '1' + '}'.repeat(5_000_000);
  t.equal(jsonTextDepthBeyond(deep, MAX_DOCUMENT_DEPTH), 5 * MAX_DOCUMENT_DEPTH, 'five million levels');
});

t.test(
  'validation refuses a document nested past 64 levels with one out_of_range problem and no derived',
  async (t) => {
    const atLimit = validateCompany({ name: 'Acme', extensions: { e: nested(62) } }, { mode: 'write' });
    t.equal(atLimit.valid, true, '64 levels (root, extensions, 62 more) is within the limit');
    const over = validateCompany({ name: 'Acme', extensions: { e: nested(63) } }, { mode: 'write' });
    t.equal(over.valid, false);
    t.equal(over.problems.length, 1);
    t.match(over.problems[0], {
      kind: 'out_of_range',
      message: 'nested deeper than 64 levels of maps and lists',
      path: /^extensions\.e(\.a)+$/,
    });
    t.equal(over.problems[0]?.segments.length, 64);
    t.equal(over.derived, null);
    const huge = validateCompany({ name: 'Acme', extensions: { e: nested(200_000) } }, { mode: 'runnable' });
    t.equal(huge.valid, false, 'runnable rules refuse it too, without overflowing');
  },
);
