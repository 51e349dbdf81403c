/**
 * Whom a comment on a native work item wakes (pure): the `@handle`s it names, and, for a person's comment,
 * the item's agent assignees and watchers; never its author, never a human seat, and an agent's comment
 * only the agents it names (two agents following one item do not wake each other on every reply).
 */
import t from 'tap';
import { commentWakes, type CommentReach } from '../../actors/work/work.effects.js';
import { mentionsIn } from '../../schema/index.js';

const seats = new Map<string, 'agent' | 'human'>([
  ['ada', 'human'],
  ['bob', 'human'],
  ['coder', 'agent'],
  ['reviewer', 'agent'],
  ['writer', 'agent'],
]);

const reach = (author: string, followers: string[], mentioned: string[]): CommentReach => ({
  comment: { id: 'c-1', author, body: '', at: '2026-12-02T10:00:00.000Z' },
  followers,
  mentioned,
});

t.test('mentions are @handles where a word or an address cannot have them', async (t) => {
  t.same(mentionsIn('@coder please look, and @Reviewer too; cc @coder.'), ['coder', 'reviewer']);
  t.same(mentionsIn('mail ada@example.com or x@y, not a mention'), []);
  t.same(mentionsIn('(@writer) and\n@iris-chen- then @-nobody'), ['writer', 'iris-chen']);
  t.same(mentionsIn(''), []);
});

t.test('a person’s comment wakes the agent assignees and watchers, and the agents it names', async (t) => {
  t.same(commentWakes(reach('ada', ['coder', 'bob', 'reviewer'], ['writer', 'bob']), seats), [
    { handle: 'writer', kind: 'mention' },
    { handle: 'coder', kind: 'notification' },
    { handle: 'reviewer', kind: 'notification' },
  ]);
  t.same(
    commentWakes(reach('ada', ['coder'], ['coder']), seats),
    [{ handle: 'coder', kind: 'mention' }],
    'one wake a seat: a mention wins',
  );
  t.same(commentWakes(reach('ops-token', ['coder'], ['nobody']), seats), [{ handle: 'coder', kind: 'notification' }], 'an operator token’s too; an unknown handle wakes nobody'); // prettier-ignore
});

t.test('an agent’s comment wakes only the agents it names, never itself', async (t) => {
  t.same(commentWakes(reach('coder', ['coder', 'reviewer'], []), seats), [], 'followers are not woken');
  t.same(commentWakes(reach('coder', ['reviewer'], ['reviewer', 'coder', 'ada']), seats), [
    { handle: 'reviewer', kind: 'mention' },
  ]);
});
