/**
 * Counterparty profiles inside `svc serve` (on JetStream, so the test can wake a seat on the node's own
 * inbox): with `learning.counterparty.enabled`, a turn woken by a person's delivery leaves a profile of
 * them that the memory view lists.
 */
import t from 'tap';
import { ensureCatalogue, openBus } from '../../bus/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { mentionWake, notificationFrom, queueWake } from '../harness/wake.js';
import { dashboard, type Frame } from '../http/fixtures/events-node.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };

t.test('a served seat profiles the person who woke it, and the memory view lists the profile', async (t) => {
  const nats = await startNatsServer({ t });
  const llm = await startLlmServer({
    wire: 'openai',
    script: [
      { kind: 'text', text: '{"decision":"plan","steps":["answer"],"tools":[]}', usage },
      { kind: 'text', text: 'Told Grace it ships on Friday.', usage },
      { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
      { kind: 'text', text: '{"traits":{"role":"release manager"},"corroborated":false}', usage },
    ],
  });
  t.teardown(() => llm.close());
  const node = await startNode(t, '', `jetstream, url: "${nats.url}"`);
  const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
  t.teardown(() => d.client.close());
  const frame = (match: (f: Frame) => boolean): Promise<Frame> =>
    Promise.resolve(d.frames.find(match) ?? d.next(match));

  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': 'profiles',
    },
    body: JSON.stringify({
      name: 'Acme',
      providers: {
        llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: llm.baseUrl } },
        llm_order: ['local'],
      },
      learning: { counterparty: { enabled: true } },
      roles: [{ name: 'Ada' }],
    }),
  });
  t.equal(put.status, 201);
  await node.run.waitForLog((l) => l.msg === 'config applied');

  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const grace = notificationFrom({ id: 'u-42', login: 'grace', name: 'Grace Hopper' });
  await queueWake(
    bus,
    'ada',
    mentionWake('Item 7: when does it ship?', { payload: { notification: grace } }),
  );
  await frame((f) => f.kind === 'event' && f.data?.type === 'counterparty_profile_updated');

  // The read models follow the stream on their own: wait until they hold the profile.
  type View = { counterparty_profiles: Array<Record<string, unknown>> };
  let view: View | null = null;
  for (let i = 0; i < 200 && !view?.counterparty_profiles.length; i++) {
    const res = await fetch(`${node.url}/agents/ada/memory`);
    t.equal(res.status, 200);
    view = (await res.json()) as View;
    if (!view.counterparty_profiles.length) await new Promise((r) => setTimeout(r, 25));
  }
  t.match(view?.counterparty_profiles, [
    {
      subject_label: 'Grace Hopper',
      subject_handle: 'grace',
      subject_external_id: 'u-42',
      subject_platform: 'tracker-b',
      subject_name: 'Grace Hopper',
      traits: { role: 'release manager' },
      interaction_count: 1,
      first_seen_at: String,
      last_updated_at: String,
      last_corroborated_at: null,
    },
  ]);
});
