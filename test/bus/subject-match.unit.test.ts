import t from 'tap';
import { assertSubject, eventTypeOf, subjectMatches, InvalidNameError, Subjects } from '../../bus/index.js';

t.test('matches "*" to exactly one token and ">" to one or more', async (t) => {
  t.ok(subjectMatches('svc.agent.*.inbox', 'svc.agent.ada.inbox'));
  t.notOk(subjectMatches('svc.agent.*.inbox', 'svc.agent.ada.x.inbox'));
  t.ok(subjectMatches('svc.events.>', 'svc.events.a.b'));
  t.notOk(subjectMatches('svc.events.>', 'svc.events'));
  t.notOk(subjectMatches('svc.a', 'svc.a.b'));
  t.ok(subjectMatches('>', 'anything.at.all'));
});

t.test('refuses empty tokens, spaces and misplaced wildcards', async (t) => {
  for (const bad of ['', 'a..b', 'a b', '.a', 'a.>.b']) {
    t.throws(() => assertSubject(bad, true), InvalidNameError, bad);
  }
  t.throws(() => assertSubject('a.*', false), InvalidNameError);
  t.doesNotThrow(() => assertSubject('a.*.>', true));
});

t.test(
  'an engine event subject names its event type, dotted types whole; other subjects name none',
  async (t) => {
    t.equal(eventTypeOf(Subjects.event('webhook_received')), 'webhook_received');
    t.equal(eventTypeOf(Subjects.event('turn.guard_breach')), 'turn.guard_breach');
    t.equal(eventTypeOf(Subjects.webhookDelivery('tracker-b')), null);
    t.equal(eventTypeOf('svc.eventsx.a'), null);
  },
);

/** NATS matching token by token, as the split tokens read: the reference the engine's matcher must agree with. */
function byTokens(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

t.test('matching agrees with token-by-token matching on every short filter and subject', async (t) => {
  const pieces = ['a', 'b', 'ab', '.', '*', '>'];
  const words: string[] = [''];
  for (let length = 0; length < 4; length++)
    for (const w of words.filter((x) => x.length === length)) for (const p of pieces) words.push(w + p);
  let differ = 0;
  for (const filter of words)
    for (const subject of words)
      if (subjectMatches(filter, subject) !== (filter === subject || byTokens(filter, subject))) differ++;
  t.equal(differ, 0, `${words.length ** 2} pairs`);
});

t.test(
  'a subject refused once is refused again; one accepted as a filter is still no plain subject',
  async (t) => {
    t.doesNotThrow(() => assertSubject('svc.events.>', true));
    t.throws(() => assertSubject('svc.events.>', false), InvalidNameError);
    t.doesNotThrow(() => assertSubject('svc.events.a', false));
    t.throws(() => assertSubject('svc..a', false), InvalidNameError);
    t.throws(() => assertSubject('svc..a', false), InvalidNameError);
  },
);
