import t from 'tap';
import { notificationOf } from '../../../actors/integration/integration.host.js';
import { ParsedBodies, peopleFrom } from '../../../actors/integration/index.js';
import { InboundNotification, RawHeader, rawDeliveryMeta, type Pipeline } from '../../../schema/index.js';

const people = peopleFrom(null);

/** A stored raw delivery as the gateway writes it. */
function raw(pipeline: Pipeline, body: unknown, over: Record<string, string> = {}) {
  return {
    stream: 'SVC_WEBHOOKS',
    seq: 7,
    data: new TextEncoder().encode(JSON.stringify(body)),
    headers: {
      [RawHeader.Vendor]: pipeline,
      [RawHeader.Pipeline]: pipeline,
      [RawHeader.DeliveryId]: 'd-1',
      [RawHeader.ReceivedAt]: '2026-01-01T00:00:00.000Z',
      [RawHeader.Event]: 'ev',
      [RawHeader.Seat]: pipeline === 'chat' ? 'ada' : '',
      [RawHeader.Scheme]: 'hmac-sha256',
      [RawHeader.SignatureHeaders]: '["x-sig"]',
      [RawHeader.VendorHeaders]: '{"x-event":"ev"}',
      [RawHeader.ContentType]: 'application/json',
      ...over,
    },
  };
}

// Actors with every field, written in another order than the schema's, and lists of people.
const who = { email: 'e@x', displayName: 'D', name: 'n', accountId: 'a', key: 'k', login: 'l', id: 7, username: 'u', display_name: 'dn', type: 'Bot' }; // prettier-ignore
const bodies: Record<Pipeline, unknown> = {
  'tracker-a': { webhookEvent: 'jira:issue_updated', user: who, issue: { id: '1', key: 'ENG-1', fields: { summary: 'S', description: 'hi @cy [~accountid:abc]', assignee: who, reporter: who } } }, // prettier-ignore
  chat: { authorizations: [{ user_id: 'UADA' }], event: { type: 'message', user: 'UBOB', bot_id: 'B', text: 'hi <@UADA> @cy', channel: 'C1', ts: '1.2' } }, // prettier-ignore
  'codehost-a': { action: 'opened', sender: who, pull_request: { id: 5, number: 3, title: 'T', body: '@cy look', assignees: [who], requested_reviewers: [who] }, repository: { full_name: 'a/b' } }, // prettier-ignore
  'codehost-b': { object_kind: 'merge_request', user: who, object_attributes: { id: 1, iid: 2, title: 'T', description: '@cy', action: 'open', url: 'u' }, assignees: [who], reviewers: [who], project: { path_with_namespace: 'a/b' } }, // prettier-ignore
  'tracker-b': { event: 'issue', action: 'updated', data: { id: 'i', name: 'N', description_stripped: '@cy', assignees: ['x', who] }, activity: { actor: who } }, // prettier-ignore
  wiki: { userAccountId: 'u1', user: { username: 'un', email: 'e' }, page: { id: 'p', title: 'T', spaceKey: 'S', creatorAccountId: 'c' }, comment: { body: '@cy ri:account-id="r"' } }, // prettier-ignore
  monitor: { status: 'firing', commonLabels: { alertname: 'A', seat: 'cy' }, message: 'm @cy' },
};

t.test('a notification is what the schema makes of it, to the same JSON bytes', async (t) => {
  for (const [pipeline, body] of Object.entries(bodies) as Array<[Pipeline, unknown]>) {
    const { notification } = notificationOf(people, raw(pipeline, body));
    if (notification === null) {
      t.fail(`${pipeline}: dropped`);
      continue;
    }
    t.ok(notification.trigger !== null || pipeline === 'monitor', `${pipeline}: a trigger`);
    t.equal(
      JSON.stringify(notification),
      JSON.stringify(InboundNotification.parse(notification)),
      `${pipeline}: parsing it changes nothing`,
    );
  }
});

t.test('stored delivery metadata is read as the schema reads it, and refused as it refuses', async (t) => {
  const good = raw('tracker-b', {}).headers;
  t.equal(
    JSON.stringify(rawDeliveryMeta(good)),
    JSON.stringify({
      vendor: 'tracker-b',
      pipeline: 'tracker-b',
      delivery_id: 'd-1',
      received_at: '2026-01-01T00:00:00.000Z',
      event: 'ev',
      seat: '',
      scheme: 'hmac-sha256',
      signature_headers: ['x-sig'],
      vendor_headers: { 'x-event': 'ev' },
      content_type: 'application/json',
    }),
  );
  const refused: Array<Record<string, string>> = [
    { [RawHeader.Vendor]: 'nobody' },
    { [RawHeader.Pipeline]: 'relay' },
    { [RawHeader.DeliveryId]: '' },
    { [RawHeader.SignatureHeaders]: '[1]' },
    { [RawHeader.SignatureHeaders]: '"x"' },
    { [RawHeader.VendorHeaders]: '{"a":1}' },
    { [RawHeader.VendorHeaders]: '["a"]' },
    { [RawHeader.VendorHeaders]: 'null' },
  ];
  for (const over of refused)
    t.throws(() => rawDeliveryMeta({ ...good, ...over }), { name: 'ZodError' }, JSON.stringify(over));
  // Unreadable JSON falls back to empty lists, as before.
  t.same(rawDeliveryMeta({ ...good, [RawHeader.VendorHeaders]: '{' }).vendor_headers, {});
});

t.test(
  'a body the receiver parsed is routed from its parse only when the stored bytes are those bytes',
  async (t) => {
    const body = bodies['tracker-b'];
    const stored = raw('tracker-b', body);
    const key = 'tracker-b:d-1';
    const alone = JSON.stringify(notificationOf(people, stored).notification);
    const kept = new ParsedBodies();
    const handed = JSON.parse(JSON.stringify(body)) as unknown;
    kept.keep(key, Buffer.from(stored.data), handed);
    const routed = notificationOf(people, stored, kept).notification;
    t.equal(routed?.payload, handed, 'the kept parse is the payload, not a second parse');
    t.equal(JSON.stringify(routed), alone, 'the same notification as parsing the stored body');
    t.equal(kept.take(key, stored.data), undefined, 'taken once');
    // Kept for other bytes under the same key (a different body reusing a delivery id): parsed afresh.
    kept.keep(key, new TextEncoder().encode('{"event":"other"}'), { event: 'other' });
    const other = notificationOf(people, stored, kept).notification;
    t.equal(JSON.stringify(other), alone);
    t.not(other?.payload, handed);
    // A form body is read as a form, whatever a JSON parse of it made.
    const form = raw('chat', {}, { [RawHeader.ContentType]: 'application/x-www-form-urlencoded' });
    const formData = new TextEncoder().encode(`payload=${encodeURIComponent(JSON.stringify(bodies.chat))}`);
    const formed = { ...form, data: formData };
    kept.keep('chat:ada:d-1', Buffer.from(formData), { not: 'the form' });
    t.same(notificationOf(people, formed, kept).notification?.payload, bodies.chat);
  },
);

t.test('a delivery without a title is summed up without a dangling colon', async (t) => {
  const untitled: Array<[Pipeline, unknown, string]> = [
    ['tracker-a', { webhookEvent: 'jira:issue_updated', issue: { key: 'ENG-1', fields: {} } }, 'ev on ENG-1'],
    [
      'codehost-a',
      { action: 'opened', issue: { number: 1 }, repository: { full_name: 'a/b' } },
      'ev opened in a/b #1',
    ],
    ['codehost-b', { object_kind: 'issue', object_attributes: { action: 'open' } }, 'ev open'],
    ['tracker-b', { event: 'issue', action: 'updated', data: { id: 'i' } }, 'ev updated'],
    ['wiki', { page: { id: 'p' } }, 'ev'],
  ];
  for (const [pipeline, body, summary] of untitled) {
    t.equal(notificationOf(people, raw(pipeline, body)).notification?.summary, summary, pipeline);
  }
  t.equal(
    notificationOf(people, raw('tracker-b', { event: 'issue', action: 'updated', data: { name: 'N' } }))
      .notification?.summary,
    'ev updated: N',
    'a title still follows its colon',
  );
});
