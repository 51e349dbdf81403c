import t from 'tap';
import {
  exitCodeOf,
  formatTable,
  parseBenchOutput,
  row,
  verdict,
  type BenchResult,
} from '../../scripts/bench/table.js';

const rows = [
  row('gateway', 'GET /health', 30_000, 'req/s', 50_000, '>= 0.6'),
  row('gateway', 'auth 404', 25_000, 'req/s', 50_000),
];

t.test('the last stdout line of rows is read; the lines before it are the benchmark’s own', async (t) => {
  const out = `wrk: 1 thread\nbare 50000 req/s\n${JSON.stringify(rows)}\n`;
  const result = parseBenchOutput('gateway', out, 0);
  t.equal(result.error, null);
  t.same(result.rows, rows);
  t.equal(result.rows[0]?.ratio, 0.6, 'ratio is figure over baseline');
  t.equal(parseBenchOutput('one', JSON.stringify(rows[1]), 0).rows.length, 1, 'a single row object is a row');
});

t.test('a benchmark that exits non-zero or prints no rows line is marked failed', async (t) => {
  const crashed = parseBenchOutput('webhooks', 'Error: boom\n', 1);
  t.match(crashed.error, /exited 1/);
  t.same(crashed.rows, []);
  const silent = parseBenchOutput('dashboard', 'first render 900 ms\n', 0);
  t.match(silent.error, /no JSON line/);
  const empty = parseBenchOutput('x', '[]\n', 0);
  t.match(empty.error, /no rows/);
  const wrong = parseBenchOutput('x', '[{"bench":"x"}]\n', 0);
  t.match(wrong.error, /not rows/);
  const signalled = parseBenchOutput('x', JSON.stringify(rows), null);
  t.match(signalled.error, /signal/);
  t.equal(signalled.rows.length, 2, 'rows it printed before failing are kept');
});

t.test('a target is met or missed against the ratio, or the figure when it names a unit', async (t) => {
  t.equal(verdict(row('b', 'm', 30, 'req/s', 50, '>= 0.6')), 'ok');
  t.equal(verdict(row('b', 'm', 20, 'req/s', 50, '>= 0.6')), 'miss');
  t.equal(verdict(row('b', 'm', 900, 'ms', 2000, '< 1000 ms')), 'ok', 'unit: the figure');
  t.equal(verdict(row('b', 'm', 1200, 'ms', null, '< 1000 ms')), 'miss');
  t.equal(verdict(row('b', 'm', 9, 'ms', 2, 'ratio <= 3')), 'miss', '"ratio" names the ratio');
  t.equal(verdict(row('b', 'm', 1.5, 'ms', null, '< 2')), 'ok', 'no baseline: a bare number is the figure');
  t.equal(verdict(row('b', 'm', 1, 'x', 1)), '', 'no target, no verdict');
  t.equal(verdict({ ...row('b', 'm', 1, 'x', 1), target: 'fast' }), '', 'an unreadable target, no verdict');
});

t.test(
  'the table lines up every row, says ok/miss, and marks a failed benchmark; exit 1 only then',
  async (t) => {
    const ran: BenchResult[] = [
      { bench: 'gateway', rows, error: null },
      { bench: 'dashboard', rows: [], error: 'it printed no JSON line of rows' },
    ];
    const table = formatTable(ran).split('\n');
    t.match(table[0], /^bench\s+measure\s+figure\s+baseline\s+ratio\s+target/);
    t.match(table[2], /^gateway\s+GET \/health\s+30,000 req\/s\s+50,000\s+0\.60\s+>= 0\.6\s+ok$/);
    t.match(table[4], /^dashboard\s+FAILED: it printed no JSON line of rows.*failed$/);
    t.equal(new Set(table.slice(0, 4).map((l) => l.indexOf('  ', 9) > 0)).size, 1);
    t.equal(exitCodeOf(ran), 1);
    const missed = [{ bench: 'g', rows: [row('g', 'm', 1, 'x', 10, '>= 0.6')], error: null }];
    t.match(formatTable(missed), /miss/);
    t.equal(exitCodeOf(missed), 0, 'a missed target is a figure, not a failure');
  },
);
