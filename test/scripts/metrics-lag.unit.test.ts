/**
 * `svc_projection_lag_messages` is read from the bus at scrape time (ops/metrics.md): a bus that cannot
 * answer costs the lag samples only, never the scrape, whose other figures matter most in an outage.
 */
import t from 'tap';
import type { Bus } from '../../bus/index.js';

type StreamInfo = Awaited<ReturnType<Bus['streamInfo']>>;
import { trackPosition } from '../../projections/runner/positions.js';
import { createNodeMetrics } from '../../scripts/metrics-wiring.js';

/** A bus whose stream reads answer as `streamInfo` does; nothing else is asked of it. */
function fakeBus(linked: boolean, streamInfo: (stream: string) => Promise<StreamInfo>): Bus {
  return { linked: () => linked, streamInfo } as unknown as Bus;
}

/** The scrape, or a failure naming the wait: a scrape must end well inside Prometheus's 10 s timeout. */
async function scrape(metrics: ReturnType<typeof createNodeMetrics>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the scrape did not end within 5 s')), 5_000);
  });
  try {
    return (await Promise.race([metrics.render(), late])).text;
  } finally {
    clearTimeout(timer);
  }
}

const lagLines = (text: string): string[] =>
  text.split('\n').filter((l) => l.startsWith('svc_projection_lag_messages{'));

t.test('a stream that never answers costs its lag sample, not the scrape', async (t) => {
  const metrics = createNodeMetrics({ nodeId: 'n1' });
  const bus = metrics.instrument(
    fakeBus(true, (stream) =>
      stream === 'HUNG'
        ? new Promise<StreamInfo>(() => undefined)
        : Promise.resolve({ lastSeq: 7 } as StreamInfo),
    ),
  );
  const untrack = [
    trackPosition(bus, { name: 'hung', stream: 'HUNG', seq: () => 1 }),
    trackPosition(bus, { name: 'fine', stream: 'FINE', seq: () => 5 }),
  ];
  t.teardown(() => untrack.forEach((u) => u()));
  const text = await scrape(metrics);
  t.same(lagLines(text), ['svc_projection_lag_messages{projection="fine",stream="FINE",node="n1"} 2']);
  t.match(text, '# TYPE svc_http_requests_total counter', 'the other figures are there');
});

t.test('with the bus link down no stream is asked: no lag sample, the scrape at once', async (t) => {
  const metrics = createNodeMetrics({ nodeId: 'n1' });
  let asked = 0;
  const bus = metrics.instrument(
    fakeBus(false, () => {
      asked += 1;
      return new Promise<StreamInfo>(() => undefined);
    }),
  );
  const untrack = trackPosition(bus, { name: 'events', stream: 'SVC_EVENTS', seq: () => 1 });
  t.teardown(untrack);
  const text = await scrape(metrics);
  t.same(lagLines(text), []);
  t.equal(asked, 0);
});
