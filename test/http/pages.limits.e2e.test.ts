/**
 * The knowledge base's limits (ops/knowledge-base.md "Limits"), each at its edge through a real listener:
 * the value at the limit is taken, one past it is refused with the catalogued error, and a refusal leaves
 * nothing on SVC_PAGES and the page as it was. One node serves the whole file; each test counts the
 * stream from where it found it.
 */
import t from 'tap';
import { startPagesNode, type PagesNode } from './fixtures/pages-node.js';

type Json = Record<string, unknown>;

const KiB = 1024;
const stored = async (node: PagesNode): Promise<number> => (await node.bus.streamInfo('SVC_PAGES')).messages;

const n = await startPagesNode(t);

async function makePage(title: string): Promise<string> {
  const r = await n.call('POST', '/pages', { body: { container: 'ENG', title, body: 'first' } });
  if (r.status !== 201) throw new Error(`create answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r.json['page_id'] as string;
}

const problemPaths = (json: Json): unknown[] => (json['problems'] as Json[]).map((p) => p['path']);

t.test('a page body of 512 KiB is taken and one byte more is refused 400 invalid_body', async (t) => {
  const base = await stored(n);
  const over = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'Too big', body: 'a'.repeat(512 * KiB + 1) },
  });
  t.equal(over.status, 400, JSON.stringify(over.json).slice(0, 300));
  t.equal(over.json['error'], 'invalid_body');
  t.same(problemPaths(over.json), ['body'], 'the problem names the body');
  t.equal((await stored(n)) - base, 0, 'the refused create wrote nothing');
  t.equal((await n.call('GET', '/pages/ENG/Too%20big')).status, 404);

  const exact = await n.call('POST', '/pages', {
    body: { container: 'ENG', title: 'Just fits', body: 'a'.repeat(512 * KiB) },
  });
  t.equal(exact.status, 201, 'exactly 512 KiB is accepted');
  const read = await n.call('GET', '/pages/ENG/Just%20fits');
  t.equal((read.json['body'] as string).length, 512 * KiB, 'and stored whole');
  t.equal((await stored(n)) - base, 1);

  // The limit counts UTF-8 bytes, not characters: 'é' is two bytes.
  const id = exact.json['page_id'] as string;
  const wide = await n.call('PATCH', `/pages/${id}`, { body: { body: 'é'.repeat(256 * KiB) + 'a' } });
  t.equal(wide.status, 400, 'an update one byte past the limit in two-byte characters');
  t.equal(wide.json['error'], 'invalid_body');
  t.same(problemPaths(wide.json), ['body']);
  t.equal((await stored(n)) - base, 1, 'the refused update wrote nothing');
  const after = await n.call('GET', `/pages/${id}`);
  t.equal(after.json['version'], 1, 'the page keeps its version');
  t.equal((after.json['body'] as string).length, 512 * KiB, 'and its body');
  const wideExact = await n.call('PATCH', `/pages/${id}`, { body: { body: 'é'.repeat(256 * KiB) } });
  t.equal(wideExact.status, 200, '512 KiB of two-byte characters is accepted');
});

t.test('a comment of 64 KiB is taken and one byte more is refused 400 invalid_body', async (t) => {
  const id = await makePage('Discussed');
  const base = await stored(n);
  const over = await n.call('POST', `/pages/${id}/comments`, { body: { body: 'c'.repeat(64 * KiB + 1) } });
  t.equal(over.status, 400);
  t.equal(over.json['error'], 'invalid_body');
  t.same(problemPaths(over.json), ['body']);
  t.equal((await stored(n)) - base, 0, 'the refused comment wrote nothing');
  const page = await n.call('GET', `/pages/${id}`);
  t.same(page.json['comments'], [], 'the page has no comment');

  const exact = await n.call('POST', `/pages/${id}/comments`, { body: { body: 'c'.repeat(64 * KiB) } });
  t.equal(exact.status, 201, 'exactly 64 KiB is accepted');
  const after = await n.call('GET', `/pages/${id}`);
  t.same(
    (after.json['comments'] as Json[]).map((c) => (c['body'] as string).length),
    [64 * KiB],
  );
  t.equal((await stored(n)) - base, 1);
});

t.test('a title with a control character or a lone surrogate is refused 400 invalid_body', async (t) => {
  const id = await makePage('Titled');
  const base = await stored(n);
  const titles = ['lone \ud800 surrogate', 'low \udc00', '\u0085x', 'csi \u009b', '\tTabbed', 'Trailing\n'];
  for (const title of titles) {
    const made = await n.call('POST', '/pages', { body: { container: 'ENG', title } });
    t.equal(made.status, 400, JSON.stringify(title));
    t.equal(made.json['error'], 'invalid_body', JSON.stringify(title));
    t.same(problemPaths(made.json), ['title'], JSON.stringify(title));
    const renamed = await n.call('PATCH', `/pages/${id}`, { body: { title } });
    t.equal(renamed.status, 400, JSON.stringify(title));
    t.same(problemPaths(renamed.json), ['title'], JSON.stringify(title));
  }
  t.equal((await stored(n)) - base, 0, 'the refused writes wrote nothing');
  const kept = await n.call('PATCH', `/pages/${id}`, { body: { title: '  Rocket 🚀  ' } });
  t.equal(kept.status, 200, 'a surrogate pair is one character; spaces at the ends are trimmed');
  t.equal((kept.json['page'] as Json)['title'], 'Rocket 🚀');
});

t.test(
  'POST /pages: a title with nothing visible is refused as the empty one, U+2028 at an end as \\n',
  async (t) => {
    const base = await stored(n);
    const empty = await n.call('POST', '/pages', { body: { container: 'ENG', title: ' ' } });
    t.equal(empty.status, 400);
    for (const title of ['\u200b', '\u00ad\u2060\ufeff', ' \u0301 ', 'A\u2028', '\u2029A']) {
      const made = await n.call('POST', '/pages', { body: { container: 'ENG', title } });
      t.equal(made.status, 400, [...title].map((c) => `U+${c.codePointAt(0)!.toString(16)}`).join(' '));
      t.equal(made.json['error'], 'invalid_body');
      t.same(problemPaths(made.json), ['title'], 'the problem names the title');
      if (!title.includes('A')) t.same(made.json['problems'], empty.json['problems'], 'as the empty title');
    }
    t.equal((await stored(n)) - base, 0, 'the refused creates wrote nothing');
  },
);

t.test('a body or comment with NUL or a lone surrogate is 400; tabs and line breaks are kept', async (t) => {
  const id = await makePage('Bodied');
  const base = await stored(n);
  for (const text of ['nul \u0000 inside', 'lone \ud800 high', 'low \udc00']) {
    const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'New', body: text } });
    t.equal(made.status, 400, `create ${JSON.stringify(text)}`);
    t.equal(made.json['error'], 'invalid_body');
    t.same(problemPaths(made.json), ['body']);
    const edited = await n.call('PATCH', `/pages/${id}`, { body: { body: text } });
    t.equal(edited.status, 400, `update ${JSON.stringify(text)}`);
    t.same(problemPaths(edited.json), ['body']);
    const comment = await n.call('POST', `/pages/${id}/comments`, { body: { body: text } });
    t.equal(comment.status, 400, `comment ${JSON.stringify(text)}`);
    t.equal(comment.json['error'], 'invalid_body');
    t.same(problemPaths(comment.json), ['body']);
  }
  t.equal((await stored(n)) - base, 0, 'the refused writes wrote nothing');
  const kept = '# Heading\n\n\tcode\r\nend 🚀';
  t.equal((await n.call('PATCH', `/pages/${id}`, { body: { body: kept } })).status, 200);
  t.equal((await n.call('GET', `/pages/${id}`)).json['body'], kept, 'tabs, line breaks and a pair kept');
  const said = await n.call('POST', `/pages/${id}/comments`, { body: { body: 'one\n\ttwo' } });
  t.equal(said.status, 201);
});

t.test('a search q of 500 characters is taken and 501 are refused 400 bad_params', async (t) => {
  await makePage('Needle');
  const base = await stored(n);
  const q500 = 'needle' + ' '.repeat(494);
  t.equal(q500.length, 500);
  const ok = await n.call('GET', `/pages?q=${encodeURIComponent(q500)}`);
  t.equal(ok.status, 200, '500 characters is accepted');
  t.same(
    (ok.json['pages'] as Json[]).map((p) => p['title']),
    ['Needle'],
    'and searched',
  );
  const over = await n.call('GET', `/pages?q=${encodeURIComponent(q500 + 'x')}`);
  t.equal(over.status, 400);
  t.equal(over.json['error'], 'bad_params');
  t.match(over.json['detail'], /500 characters/);
  t.type(over.json['hint'], 'string');
  // Characters, not bytes: 500 two-byte letters are still 500 characters.
  const wide = await n.call('GET', `/pages?q=${encodeURIComponent('é'.repeat(500))}`);
  t.equal(wide.status, 200, '500 two-byte characters are accepted');
  t.equal((await stored(n)) - base, 0, 'a search writes nothing');
});

t.test('the q limit counts characters beyond the BMP once each, not as two UTF-16 units', async (t) => {
  const bold = '\u{1D400}'; // MATHEMATICAL BOLD CAPITAL A: one character, two UTF-16 units, four bytes
  const at = await n.call('GET', `/pages?q=${encodeURIComponent(bold.repeat(500))}`);
  t.equal(at.status, 200, '500 astral characters are 500 characters');
  const over = await n.call('GET', `/pages?q=${encodeURIComponent(bold.repeat(501))}`);
  t.equal(over.status, 400, '501 are one too many');
  t.equal(over.json['error'], 'bad_params');
});

t.test('the 51st revision is taken; a read shows the newest 50 and counts all 51', async (t) => {
  const base = await stored(n);
  const id = await makePage('Busy');
  for (let v = 2; v <= 50; v++) {
    const r = await n.call('PATCH', `/pages/${id}`, { body: { body: `v${v}` } });
    if (r.status !== 200) t.fail(`update to v${v} answered ${r.status}`);
  }
  const at50 = await n.call('GET', `/pages/${id}`);
  t.equal(at50.json['revisions_total'], 50);
  t.equal((at50.json['revisions'] as Json[]).length, 50, 'all 50 shown');

  const r51 = await n.call('PATCH', `/pages/${id}`, { body: { body: 'v51' } });
  t.equal(r51.status, 200, 'a revision past 50 is not refused');
  t.equal(r51.json['version'], 51);
  const page = await n.call('GET', `/pages/${id}`);
  t.equal(page.json['version'], 51);
  t.equal(page.json['body'], 'v51');
  t.equal(page.json['revisions_total'], 51, 'the count is whole');
  const versions = (page.json['revisions'] as Json[]).map((r) => r['version']);
  t.equal(versions.length, 50, 'only the newest 50 are shown');
  t.equal(versions[0], 51, 'newest first');
  t.equal(versions[49], 2, 'the oldest (the creation) drops out of the list');
  t.notOk(versions.includes(1));
  t.equal(page.json['created_at'], at50.json['created_at'], 'the creation metadata stays');
  t.equal((await stored(n)) - base, 51, 'every revision is a record on the stream');
});
