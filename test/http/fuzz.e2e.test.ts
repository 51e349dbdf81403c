/**
 * Fuzzing a running, unconfigured `svc serve` (memory engine) through raw sockets with generated requests
 * over every route family (fixtures/fuzz-requests.ts): no 5xx, no hang, no crash.
 * `FUZZ_RUNS` sets the number of cases (default 1500; `scripts/fuzz.sh` runs a longer one).
 */
import t from 'tap';
import { startNode } from '../harness/serve-node.js';
import { fuzzNode, requests } from './fixtures/fuzz-requests.js';

const runs = Number(process.env['FUZZ_RUNS'] ?? 1500);

t.test('generated requests never get a 5xx, a hang or a crash', async (t) => {
  const node = await startNode(t);
  const seen = await fuzzNode(t, node, requests(), runs);
  t.ok(seen.size > 3, 'the cases reached many answers');
});
