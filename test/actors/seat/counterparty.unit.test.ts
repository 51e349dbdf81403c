/**
 * Counterparty profiles, pure parts: who a wake came from (a vendor delivery's author who is not a bot), the
 * profile's key, the model's answer read and bounded, the next profile, and the prompt text.
 */
import t from 'tap';
import {
  aboutCounterparty,
  counterpartyKey,
  counterpartyOf,
  nextProfile,
  profilerRequest,
  readProfilerAnswer,
  TRAITS_MAX,
} from '../../../actors/seat/counterparty.js';
import type { Wake } from '../../../actors/seat/seat.types.js';
import { notificationFrom } from '../../harness/wake.js';

const wakeWith = (payload: Record<string, unknown>): Wake => ({
  id: 'w-1',
  kind: 'notification',
  source: 'webhook:tracker-b',
  summary: 'Item 7 updated',
  trace_id: 'trace',
  payload,
});

t.test('the counterparty of a wake is the author of its delivery, not a bot nor a schedule', async (t) => {
  const who = counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace Hopper' }) })); // prettier-ignore
  t.same(who, {
    platform: 'tracker-b',
    external_id: 'u-42',
    handle: 'grace',
    name: 'Grace Hopper',
    label: 'Grace Hopper',
    identity: 'u-42',
  });
  t.equal(
    counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'b-1', login: 'ci', bot: true }) })),
    null,
  );
  t.equal(counterpartyOf(wakeWith({ notification: notificationFrom(null) })), null);
  t.equal(counterpartyOf(wakeWith({ notification: notificationFrom({}) })), null, 'nothing names them');
  t.equal(counterpartyOf(wakeWith({})), null, 'a schedule or a mention from the API');
  t.equal(counterpartyOf(wakeWith({ notification: { id: 'not a notification' } })), null);
  const wiki = counterpartyOf(
    wakeWith({ notification: notificationFrom({ id: '557058:abc', email: 'ops@example.com' }, 'wiki') }),
  );
  t.equal(wiki?.label, '557058:abc', "without a name or login the label is the vendor's id, not the e-mail");
  const onlyMail = counterpartyOf(
    wakeWith({ notification: notificationFrom({ email: 'ops@example.com' }, 'chat') }),
  );
  t.match(onlyMail?.label, /^person [0-9a-f]{8}$/, 'one known by an e-mail alone is not labelled by it');
  const mailAsLogin = counterpartyOf(
    wakeWith({ notification: notificationFrom({ login: 'ops@example.com', name: 'ops@example.com' }) }),
  );
  t.match(
    mailAsLogin,
    { handle: null, name: null, label: /^person / },
    'nor by one given as a login or name',
  );
});

t.test('a person known by an e-mail alone keeps the key the e-mail gave them', async (t) => {
  const mail = (email: string) =>
    counterpartyOf(wakeWith({ notification: notificationFrom({ email }, 'chat') }))!;
  t.equal(counterpartyKey(mail('ops@example.com')), counterpartyKey(mail('ops@example.com')));
  t.not(counterpartyKey(mail('ops@example.com')), counterpartyKey(mail('dev@example.com')));
  t.not(mail('ops@example.com').label, mail('dev@example.com').label, 'two such people are told apart');
});

t.test('a person keeps one key per platform whatever name they go by', async (t) => {
  const a = counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'u-42', name: 'Grace' }) }))!;
  const b = counterpartyOf(
    wakeWith({ notification: notificationFrom({ id: 'u-42', name: 'Grace Hopper' }) }),
  )!;
  const elsewhere = counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'u-42' }, 'chat') }))!;
  t.equal(counterpartyKey(a), counterpartyKey(b));
  t.not(counterpartyKey(a), counterpartyKey(elsewhere));
  t.match(counterpartyKey(a), /^[0-9a-f]{32}$/);
});

t.test('the model’s traits are read leniently and bounded', async (t) => {
  t.same(readProfilerAnswer('Sure: {"traits": {"role": " release manager ", "tools": ["ci", "tracker"], "senior": true}, "corroborated": true}'), {
    traits: { role: 'release manager', tools: 'ci, tracker', senior: 'true' },
    corroborated: true,
  }); // prettier-ignore
  t.same(readProfilerAnswer('{"traits": {"nested": {"a": 1}, "": "x", "empty": ""}}'), {
    traits: {},
    corroborated: false,
  });
  t.equal(readProfilerAnswer('no JSON here'), undefined);
  t.equal(readProfilerAnswer('{"traits": "a string"}'), undefined);
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`t${i}`, 'x'.repeat(1_000)]));
  const read = readProfilerAnswer(JSON.stringify({ traits: many }))!;
  t.equal(Object.keys(read.traits).length, TRAITS_MAX);
  t.ok(Object.values(read.traits).every((v) => v.length <= 300));
});

t.test(
  'each interaction counts; traits change only with an answer; corroboration needs a known profile',
  async (t) => {
    const who = counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace' }) }))!; // prettier-ignore
    const first = nextProfile(
      null,
      who,
      { traits: { role: 'pm' }, corroborated: true },
      new Date('2026-12-01T10:00:00Z'),
    );
    t.match(first, {
      subject_label: 'Grace',
      subject_handle: 'grace',
      subject_external_id: 'u-42',
      subject_platform: 'tracker-b',
      subject_name: 'Grace',
      traits: { role: 'pm' },
      interaction_count: 1,
      first_seen_at: '2026-12-01T10:00:00.000Z',
      last_updated_at: '2026-12-01T10:00:00.000Z',
      last_corroborated_at: null,
    });
    const second = nextProfile(first, who, null, new Date('2026-12-02T10:00:00Z'));
    t.match(second, { traits: { role: 'pm' }, interaction_count: 2, first_seen_at: first.first_seen_at, last_corroborated_at: null }); // prettier-ignore
    const third = nextProfile(second, who, { traits: { role: 'pm', tone: 'brief' }, corroborated: true }, new Date('2026-12-03T10:00:00Z')); // prettier-ignore
    t.match(third, { traits: { role: 'pm', tone: 'brief' }, interaction_count: 3, last_corroborated_at: '2026-12-03T10:00:00.000Z' }); // prettier-ignore
  },
);

t.test('the prompt names the person, how often they were met and what is known', async (t) => {
  const who = counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace' }) }))!; // prettier-ignore
  const profile = nextProfile(null, who, { traits: { role: 'pm' }, corroborated: false }, new Date());
  t.equal(
    aboutCounterparty(profile),
    'What you know about Grace (@grace) on tracker-b (1 earlier exchange):\n- role: pm',
  );
  t.match(
    aboutCounterparty({ ...profile, traits: {}, interaction_count: 3 }),
    /\(3 earlier exchanges\):\n- no traits noted yet$/,
  );
});

t.test('the profiler reads the known traits and every exchange held, oldest first', async (t) => {
  const who = counterpartyOf(wakeWith({ notification: notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace' }) }))!; // prettier-ignore
  const known = nextProfile(null, who, { traits: { role: 'pm' }, corroborated: false }, new Date());
  const request = profilerRequest(who, known, [
    { ask: 'When does item 7 ship?', account: 'Said Friday.', outcome: 'passed_first' },
    { ask: 'And item 8?', account: 'Said Monday.', outcome: 'failed' },
  ]);
  const text = JSON.stringify(request.messages);
  t.match(text, /Person: Grace \(@grace\) on tracker-b/);
  t.match(text, /Known traits: \{\\"role\\":\\"pm\\"\}/);
  t.match(
    text,
    /Exchange 1\\nThey asked: When does item 7 ship\?\\nThe agent did \(passed_first\): Said Friday\./,
  );
  t.match(text, /Exchange 2\\nThey asked: And item 8\?\\nThe agent did \(failed\): Said Monday\./);
  t.match(JSON.stringify(profilerRequest(who, null, []).messages), /Known traits: \(none yet\)/);
});
