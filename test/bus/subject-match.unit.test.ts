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
