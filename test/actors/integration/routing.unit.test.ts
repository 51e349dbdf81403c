import t from 'tap';
import { peopleFrom, routeNotification } from '../../../actors/integration/index.js';
import type { InboundNotification } from '../../../schema/index.js';
import { companyDocument } from '../../http/webhooks/fixtures/company.js';

const people = peopleFrom(companyDocument());

function wiki(over: Partial<InboundNotification> = {}): InboundNotification {
  return {
    id: 'wiki:1',
    vendor: 'wiki',
    pipeline: 'wiki',
    event: 'page_updated',
    delivery_id: '1',
    received_at: '2026-01-01T00:00:00Z',
    seat: null,
    trigger: { id: 'acc-bob' },
    summary: 's',
    subject: { kind: 'page', id: '42', key: null, title: 'P', space: 'ENG', url: null },
    mentions: [],
    named: [],
    raw: { stream: 'SVC_WEBHOOKS_WIKI', seq: 1 },
    payload: null,
    ...over,
  };
}

t.test('wiki: page watchers come first, and the trigger is never one of the recipients', async (t) => {
  const d = routeNotification(wiki({ trigger: { id: 'x' } }), people, ['cy', 'bob']);
  t.equal(d.step, 'watchers');
  t.same(d.recipients, ['cy']);
  t.same(d.skippedHumans, ['bob'], 'a human watcher is skipped quietly');
});

t.test('wiki: a comment mention joins the watchers and is added as a watcher', async (t) => {
  const d = routeNotification(wiki({ mentions: ['cy'] }), people, []);
  t.equal(d.step, 'watchers');
  t.same(d.recipients, ['cy']);
  t.same(d.mentioned, ['cy']);
  t.same(d.addWatchers, ['cy']);
});

t.test('wiki: without watchers or mentions the unit leads of the space are notified', async (t) => {
  const d = routeNotification(wiki(), people, []);
  t.equal(d.step, 'leads');
  t.same(d.recipients, ['ada']);
});

t.test('wiki: then handle or e-mail resolution of the people the event names', async (t) => {
  const d = routeNotification(
    wiki({ subject: { ...wiki().subject, space: 'OTHER' }, named: [{ email: 'CY@example.com' }] }),
    people,
    [],
  );
  t.equal(d.step, 'resolution');
  t.same(d.recipients, ['cy']);
});

t.test('wiki: a candidate list of only the trigger drops the event', async (t) => {
  const d = routeNotification(wiki({ trigger: { id: 'acc-bob' } }), people, ['bob']);
  t.equal(d.dropped, 'only_trigger');
  t.same(d.recipients, []);
  const lead = routeNotification(wiki({ trigger: { email: 'x' }, named: [] }), people, []);
  t.same(lead.recipients, ['ada']);
});

t.test('wiki: nobody to notify drops the event', async (t) => {
  const d = routeNotification(wiki({ subject: { ...wiki().subject, space: 'NONE' } }), people, []);
  t.equal(d.dropped, 'no_candidates');
});

t.test('other vendors: the addressed seat, mentions and named people, never a human seat', async (t) => {
  const n = wiki({
    pipeline: 'codehost-a',
    vendor: 'codehost-a',
    seat: 'ada',
    trigger: { login: 'bob-gh' },
    mentions: ['bob-gh', 'cy'],
  });
  const d = routeNotification(n, people, []);
  t.same(d.recipients, ['ada', 'cy']);
  t.same(d.skippedHumans, [], 'the trigger (bob) is removed before humans are counted');
});

t.test('the decision names the seat the sender resolved to (a wake from it answers it)', async (t) => {
  const n = wiki({ pipeline: 'codehost-a', vendor: 'codehost-a', seat: 'ada', trigger: { login: 'bob-gh' } });
  t.equal(routeNotification(n, people, []).trigger, 'bob');
  t.equal(routeNotification(wiki({ trigger: null }), people, []).trigger, null, 'no sender');
  t.equal(
    routeNotification(wiki({ trigger: { id: 'stranger' } }), people, []).trigger,
    null,
    'unknown sender',
  );
});
