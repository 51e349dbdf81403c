import t from 'tap';
import { CounterCells, HistogramCells } from '../../scripts/metric-cells.js';

t.test('a counter adds up per label set, the shared labels after its own', async (t) => {
  const c = new CounterCells({
    name: 'x_total',
    help: 'Xs.',
    labelNames: ['seat', 'kind'],
    shared: { node: 'a' },
  });
  c.inc(['cy', 'input'], 10);
  c.inc(['cy', 'input'], 5);
  c.inc(['ada', 'output']);
  const text = c.render();
  t.match(text, '# HELP x_total Xs.\n# TYPE x_total counter\n');
  t.match(text, 'x_total{seat="cy",kind="input",node="a"} 15\n');
  t.match(text, 'x_total{seat="ada",kind="output",node="a"} 1\n');
  t.ok(text.endsWith('\n') && !text.endsWith('\n\n'), 'one line feed closes the text');
});

t.test('a histogram writes cumulative buckets, sum and count per label set', async (t) => {
  const h = new HistogramCells({ name: 'p_seconds', help: 'Ps.', labelNames: ['subject'] }, [0.01, 0.1]);
  for (const s of [0.002, 0.05, 3]) h.observe(['svc.events'], s);
  const text = h.render();
  const series = 'subject="svc.events"';
  t.match(text, '# TYPE p_seconds histogram\n');
  t.match(text, `p_seconds_bucket{${series},le="0.01"} 1\n`);
  t.match(text, `p_seconds_bucket{${series},le="0.1"} 2\n`);
  t.match(text, `p_seconds_bucket{${series},le="+Inf"} 3\n`);
  t.match(text, `p_seconds_sum{${series}} 3.052\n`);
  t.match(text, `p_seconds_count{${series}} 3\n`);
});

t.test('label values are escaped as the text format requires', async (t) => {
  const c = new CounterCells({ name: 'x_total', help: 'Xs.', labelNames: ['seat'], shared: { node: 'a"b' } });
  c.inc(['x\n"y"\\']);
  t.match(c.render(), 'x_total{seat="x\\n\\"y\\"\\\\",node="a\\"b"} 1\n');
});
