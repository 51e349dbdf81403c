/**
 * The title rule a write is held to (schema/text-grammars.ts, ops/work-tracker.md and ops/knowledge-base.md):
 * a title with no visible character is the empty title, and U+2028/U+2029 (as \n, \r, \v, \f, NEL) break
 * the line anywhere, the ends too. `isTitle` (what `svc` checks before sending) and the routes' schemas
 * agree; what the logs already hold keeps folding.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import t from 'tap';
import {
  isTitle,
  ITEM_TITLE_MAX,
  ItemTitle,
  defaultFields,
  lineText,
  PAGE_TITLE_MAX,
  PageRecord,
  PageTitle,
  WorkRecord,
} from '../../schema/index.js';

/** Characters that show nothing and are not controls: spaces, format characters, ignorables, marks. */
const invisibles = [
  ' ',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u200e',
  '\u202e',
  '\u061c',
  '\u0301',
  '\u034f',
  '\ufe0f',
  '\u180e',
  '\u115f',
  '\u3164',
  '\u{e0020}',
  '\u{1d173}',
];
const lineBreaks = ['\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029'];
const visibles = ['A', 'z', '7', 'é', '🚀', '中', '-', '.x', 'e\u0301', '\u00e9\u200b'];

const invisible = fc.array(fc.constantFrom(...invisibles), { maxLength: 12 }).map((cs) => cs.join(''));
const visible = fc.constantFrom(...visibles);
const lineBreak = fc.constantFrom(...lineBreaks);
/** Short text of any code points (a lone surrogate included), the interesting ones often. */
const anyText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...invisibles, ...lineBreaks, ...visibles, '\t', '\u0000', '\ud800', '\u009b'),
      fc.string({ unit: 'binary', maxLength: 3 }),
    ),
    { maxLength: 10 },
  )
  .map((parts) => parts.join(''));

/** `s` with every character past ASCII written as \uXXXX: a raw U+2028 would break a TAP line. */
const shown = (s: string) =>
  JSON.stringify(s).replace(/[^\x20-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

const emptyIssue = ItemTitle.safeParse('').error?.issues;

t.test('a title of invisible characters alone is refused as the empty title is', async (t) => {
  t.match(emptyIssue, [{ code: 'too_small', minimum: 1 }], 'the empty title: too_small');
  fc.assert(
    fc.property(
      invisible,
      (title) =>
        !isTitle(title, ITEM_TITLE_MAX) &&
        isDeepStrictEqual(ItemTitle.safeParse(title).error?.issues, emptyIssue) &&
        isDeepStrictEqual(PageTitle.safeParse(title).error?.issues, emptyIssue),
    ),
    { numRuns: 200 },
  );
  t.pass('held');
});

t.test('one visible character among invisible ones makes a title', async (t) => {
  fc.assert(
    fc.property(invisible, visible, invisible, (before, seen, after) => {
      const title = `${before}${seen}${after}`;
      return (
        isTitle(title, ITEM_TITLE_MAX) &&
        ItemTitle.safeParse(title).success &&
        PageTitle.safeParse(title).success
      );
    }),
    { numRuns: 200 },
  );
  t.pass('held');
});

t.test('a line break anywhere, at either end too, is refused rather than trimmed off', async (t) => {
  t.equal('A\u2028'.trim(), 'A', 'trim() alone would cut U+2028 off');
  fc.assert(
    fc.property(visible, lineBreak, fc.constantFrom('start', 'middle', 'end'), (seen, brk, where) => {
      const title =
        where === 'start' ? `${brk}${seen}` : where === 'end' ? `${seen}${brk}` : `${seen}${brk}${seen}`;
      return (
        !isTitle(title, ITEM_TITLE_MAX) &&
        !ItemTitle.safeParse(title).success &&
        !PageTitle.safeParse(title).success &&
        !lineText().safeParse(title).success
      );
    }),
    { numRuns: 200 },
  );
  t.pass('held');
});

t.test('the client check and the routes agree on any title', async (t) => {
  fc.assert(
    fc.property(anyText, (title) => {
      const item = ItemTitle.safeParse(title).success;
      if (isTitle(title, ITEM_TITLE_MAX) !== item) return false;
      const trimmed = title.trim();
      // A page title is also not a dot segment, a rule the client leaves to the route.
      if (trimmed === '.' || trimmed === '..') return true;
      return isTitle(title, PAGE_TITLE_MAX) === PageTitle.safeParse(title).success;
    }),
    { numRuns: 2000 },
  );
  t.pass('held');
});

t.test('a title stored before the rule still folds from the log', async (t) => {
  for (const title of ['\u200b', '\u00ad\u0301', 'A\u2028', '\u2029B']) {
    const at = '2025-01-01T00:00:00Z';
    const item = WorkRecord.safeParse({
      kind: 'item.created',
      op_id: 'op-1',
      at,
      actor: 'ada',
      id: 'a0000000-0000-4000-8000-000000000001',
      project: 'ENG',
      key: 'ENG-1',
      number: 1,
      status: 'todo',
      fields: { ...defaultFields(), title },
    });
    t.ok(item.success, `an item created titled ${shown(title)}`);
    const renamed = WorkRecord.safeParse({
      kind: 'item.updated',
      op_id: 'op-2',
      at,
      actor: 'ada',
      id: 'a0000000-0000-4000-8000-000000000001',
      changes: { title },
    });
    t.ok(renamed.success, `an item renamed ${shown(title)}`);
    const page = PageRecord.safeParse({
      type: 'page.create',
      op_id: 'op-3',
      at,
      by: { kind: 'operator', id: 'ops', name: 'ops' },
      page_id: 'p-1',
      container: 'ENG',
      title,
      body: '',
      parent_id: null,
    });
    t.ok(page.success, `a page created titled ${shown(title)}`);
  }
});
