// The precondition headers' one reading (RFC 9110 13.1): lists, weak tags, bare ids, `*`.
import t from 'tap';
import { parseTagList, strongMatch, weakMatch } from '../../http/entity-tags.js';

t.test('a precondition header reads as `*` or the tags it lists', async (t) => {
  t.same(parseTagList(' * '), { any: true });
  t.same(parseTagList('"a", W/"b" ,c'), {
    any: false,
    tags: [
      { value: 'a', weak: false },
      { value: 'b', weak: true },
      { value: 'c', weak: false },
    ],
  });
  t.same(
    parseTagList('"a,b"'),
    { any: false, tags: [{ value: 'a,b', weak: false }] },
    'a comma inside quotes',
  );
  t.same(parseTagList(' , "a",, '), { any: false, tags: [{ value: 'a', weak: false }] }, 'empty elements');
  t.equal(parseTagList('"a'), null, 'an unclosed quote is no list');
  t.equal(parseTagList('"a" "b"'), null, 'two tags without a comma are no list');
  t.equal(parseTagList(`"${'a'.repeat(10_000)}"`), null, 'a header far longer than any list');
});

t.test('If-Match compares strongly, If-None-Match weakly', async (t) => {
  const list = parseTagList('W/"3", "4"')!;
  t.notOk(strongMatch(list, '3'), 'a weak tag never matches under If-Match');
  t.ok(strongMatch(list, '4'), 'any strong tag listed may match');
  t.ok(weakMatch(list, '3'), 'under If-None-Match weakness is ignored');
  t.notOk(weakMatch(list, '5'));
  t.ok(strongMatch(parseTagList('*')!, '9'), '`*` matches a current representation');
  t.notOk(strongMatch(parseTagList('*')!, null), 'and none when there is none');
});
