/**
 * Arrival counts are kept per surface forever, so a surface is one the document names: deliveries to
 * per-seat paths of made-up handles are counted together, not one new surface (and record) per handle.
 */
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

const decoder = new TextDecoder();

t.test('unsigned deliveries to many unknown per-seat handles add one surface, not one each', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  for (let i = 0; i < 20; i++) {
    const res = await node.post(`/webhooks/codehost-a/nobody${i}`, '{}', { 'x-codehost-a-event': 'issues' });
    t.equal(res.status, 503, `handle ${i}: no secret for it`);
  }
  // Asking for the counts appends what this node counted.
  const answer = await fetch(`${node.h.base}/integrations`);
  t.equal(answer.status, 200);
  const surfaces = new Set<string>();
  for (const m of await node.messages(Streams.Integrations)) {
    const record = JSON.parse(decoder.decode(m.data)) as { type?: string; surface?: string };
    if (record.type === 'arrival' && record.surface !== undefined) surfaces.add(record.surface);
  }
  t.same([...surfaces], ['codehost-a/*'], 'counted under one surface');
  const body = (await answer.json()) as { surfaces: Array<{ surface: string }> };
  t.notOk(
    body.surfaces.some((s) => s.surface.startsWith('codehost-a/nobody')),
    'no row for a made-up handle',
  );
});
