/**
 * Fuzzing every receiver with correctly signed deliveries whose payloads are generated: a receiver's valid
 * payload with subtrees replaced, removed or added (strings where objects were, arrays, nulls, huge
 * numbers, unicode), or any JSON value at all. Signed, a delivery gets past verification into the vendor
 * parse and the routing behind it, where a shape nobody sends today must not break anything: each is
 * answered 200 or a coded 400, routing never logs an error (`webhook_unparseable`: a delivery the node
 * accepted but cannot read), and afterwards a valid delivery of every receiver is still routed to its seat.
 * `FUZZ_RUNS` sets the number of cases (default 1500).
 */
import fc from 'fast-check';
import t from 'tap';
import type { InboxMessage } from '../../../schema/index.js';
import { vendorCases } from './fixtures/vendors.js';
import { startWebhookNode } from './fixtures/webhook-node.js';
import { mutate, mutation, oddValue, type Json, type Mutation } from '../../fixtures/json-mutations.js';

const runs = Number(process.env['FUZZ_RUNS'] ?? 1500);
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : undefined;

t.test('signed deliveries with generated payloads are answered and routed without an error', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const cases = vendorCases(null);
  let id = 0;
  const statuses = new Map<string, number>();
  const payload = fc.oneof(
    { arbitrary: fc.array(mutation, { minLength: 1, maxLength: 5 }).map((ms) => ({ ms, any: null })), weight: 4 }, // prettier-ignore
    { arbitrary: oddValue.map((any) => ({ ms: [] as Mutation[], any })), weight: 1 },
  );
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: cases.length - 1 }), payload, async (which, { ms, any }) => {
      const v = cases[which]!;
      const n = ++id;
      const body =
        any !== null ? JSON.stringify(any) : JSON.stringify(ms.reduce(mutate, JSON.parse(v.body(n)) as Json));
      const res = await node.post(v.path, body, v.sign(body, { id: `fuzz-${n}` }));
      const key = `${v.name} ${res.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (res.status === 200 && res.json?.['accepted'] === true) return;
      if (res.status === 400 && typeof res.json?.['error'] === 'string') return;
      throw new Error(`${v.name} answered ${res.status} to ${body.slice(0, 300)}: ${res.text}`);
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
  );
  t.comment(`answers: ${[...statuses].map(([k, n]) => `${k}×${n}`).join(', ')}`);

  // Routing follows the log: once a valid delivery of every receiver, sent last, is in its seat's inbox,
  // every generated one before it has been routed or dropped.
  for (const v of cases) {
    const body = v.body(1_000_000 + ++id);
    const res = await node.post(v.path, body, v.sign(body, { id: `last-${id}` }));
    t.equal(res.status, 200, `${v.name}: the last delivery is accepted`);
    const routed = await node.inbox(
      (m: InboxMessage) =>
        JSON.stringify((m.payload['notification'] as { payload?: unknown } | undefined)?.payload) ===
        JSON.stringify(JSON.parse(body)),
    );
    t.equal(routed.handle, v.routesTo, `${v.name}: still routed to its seat`);
  }
  const errors = node.hostLogs.filter((l) => typeof l['level'] === 'number' && l['level'] >= 50);
  t.same(
    errors.map((l) => `${String(l['event'])}: ${JSON.stringify(l['err'] ?? null).slice(0, 300)}`),
    [],
    'routing logged no error',
  );
});
