/**
 * The gateway's catch-all: a write whose handler failed on the bus (its server lost, a stream electing a
 * leader) answers 503 `outcome_unknown` with `Retry-After`, never a codeless 500; a read failing the same
 * way, or a write failing on anything else, is still the spec's codeless 500 (a bug).
 */
import t from 'tap';
import { EngineUnavailableError } from '../../bus/index.js';
import type { RouteDef } from '../../http/index.js';
import { call, OPS, startHarness } from './fixtures/gateway-harness.js';

const failing = (method: RouteDef['method'], pattern: string, error: () => Error): RouteDef => ({
  method,
  pattern,
  handler: () => {
    throw error();
  },
});
const busDown = () => new EngineUnavailableError('publish to svc.x: no answer from the NATS server in time');

t.test(
  'a write failing on the bus answers 503 outcome_unknown; anything else stays a codeless 500',
  async (t) => {
    const h = await startHarness({
      routes: [
        failing('POST', '/bus-write', busDown),
        failing('GET', '/bus-read', busDown),
        failing('POST', '/bug', () => new TypeError('x is undefined')),
      ],
    });
    t.teardown(() => h.gw.close());
    const write = await call(`${h.base}/bus-write`, { method: 'POST', headers: { authorization: OPS } });
    t.equal(write.status, 503);
    t.equal(write.json?.['error'], 'outcome_unknown');
    t.equal(write.headers.get('retry-after'), '5');
    t.notMatch(write.text, /NATS/, 'the bus error stays in the log');
    await h.waitForLog((l) => l['event'] === 'outcome_unknown');

    const read = await call(`${h.base}/bus-read`, { headers: { authorization: OPS } });
    t.equal(read.status, 500, 'a read has no outcome to be unsure of');
    t.equal(read.json?.['error'], undefined);
    const bug = await call(`${h.base}/bug`, { method: 'POST', headers: { authorization: OPS } });
    t.equal(bug.status, 500);
    t.equal(bug.json?.['error'], undefined, 'a bug is not dressed up as a bus failure');
  },
);

t.test(
  'the outcome_unknown hint fits the write it answers: a work, page or secret write speaks of no revision',
  async (t) => {
    const h = await startHarness({
      routes: [
        failing('POST', '/work/:id/comments', busDown),
        failing('PATCH', '/pages/*', busDown),
        failing('PUT', '/secrets/:name', busDown),
        failing('POST', '/agents/:id/pause', busDown),
      ],
    });
    t.teardown(() => h.gw.close());
    const cases: Array<[string, string, RegExp]> = [
      ['POST', '/work/ENG-1/comments', /GET \/work\/\{id\}.*op_id/],
      ['PATCH', '/pages/p1', /GET \/pages\/\{id\}.*op_id/],
      ['PUT', '/secrets/API_KEY', /GET \/secrets\/\{name\}/],
      ['POST', '/agents/bo/pause', /GET \/agents\/\{id\}/],
    ];
    for (const [method, path, names] of cases) {
      const r = await call(`${h.base}${path}`, { method, headers: { authorization: OPS } });
      t.equal(r.status, 503, `${method} ${path}`);
      t.equal(r.json?.['error'], 'outcome_unknown', `${method} ${path}`);
      const hint = String(r.json?.['hint']);
      t.notMatch(hint, /revision|If-Match/i, `${method} ${path}: no config revision in the hint`);
      t.match(hint, names, `${method} ${path}: the hint says how to read the write back`);
    }
  },
);
