/**
 * The node's metrics (`GET /metrics`, ops/metrics.md), kept with prom-client in a registry of this node's own.
 * No other folder imports the library: the gateway reports answered requests through its `RequestObserver`,
 * the bus is wrapped here so every publish is timed (and the spend and turn records it carries are counted),
 * and projection lag is read at scrape time from the positions the runner keeps per bus.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { builtSpend } from '../actors/index.js';
import type { Bus, PubAck, PublishOptions } from '../bus/index.js';
import type { AnsweredRequest, MetricsSource, RequestObserver } from '../http/index.js';
import { projectionPositions } from '../projections/index.js';
import { EventRecord, SpendRecord } from '../schema/index.js';
import { CounterCells, HistogramCells } from './metric-cells.js';
import { RequestMetrics } from './request-metrics.js';

export interface NodeMetrics extends MetricsSource {
  readonly registry: Registry;
  /** The gateway's observer: requests by route and status, webhook arrivals and refusals. */
  readonly requests: RequestObserver;
  /** `bus` with every publish timed and the records it carries counted; hand this one to every subsystem. */
  instrument(bus: Bus): Bus;
  /** Counts spans the tracing SDK dropped because its export queue was full. */
  spansDropped(count: number): void;
}

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const decoder = new TextDecoder();

/** `svc.events.agent_turn_completed` → `svc.events`: two tokens keep the label set small and bounded. */
export const subjectFamily = (subject: string): string => {
  const first = subject.indexOf('.');
  const second = first < 0 ? -1 : subject.indexOf('.', first + 1);
  return second < 0 ? subject : subject.slice(0, second);
};

/** How long a scrape waits for the streams' last sequences; one that has not answered reports no lag. */
const LAG_READ_MS = 2_000;

/** Each stream's last sequence, read at once; a stream out of reach or too slow is left out (no sample, not 0). */
async function lastSequences(bus: Bus, streams: readonly string[]): Promise<ReadonlyMap<string, number>> {
  const last = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, LAG_READ_MS);
  });
  const reads = streams.map(async (stream) => {
    try {
      last.set(stream, (await bus.streamInfo(stream)).lastSeq);
    } catch {
      // Out of reach: its projections report nothing rather than 0.
    }
  });
  await Promise.race([Promise.all(reads), deadline]);
  clearTimeout(timer);
  return new Map(last);
}

/** The seven figures prom-client reads off its event-loop delay histogram, emptied at each scrape. */
const loopWindowSample = /^nodejs_eventloop_lag_(?:min|max|mean|stddev|p50|p90|p99)_seconds[{ ]/;

/**
 * A scrape right after another (two Prometheus servers, a retry) finds that histogram empty, and prom-client
 * writes its mean and deviation as `Nan` (the format spells it `NaN`) and its minimum as 2^63 ns (292 years):
 * a window that measured nothing leaves its seven samples out, the families still declared. Any other
 * not-a-number is written `NaN`.
 */
function withoutEmptyLoopWindow(text: string): string {
  const lines = text.split('\n');
  const empty = lines.some((l) => l.startsWith('nodejs_eventloop_lag_mean_seconds') && l.endsWith(' Nan'));
  const kept = empty ? lines.filter((l) => !loopWindowSample.test(l)) : lines;
  return kept.map((l) => (l.endsWith(' Nan') && !l.startsWith('#') ? `${l.slice(0, -3)}NaN` : l)).join('\n');
}

export function createNodeMetrics(opts: { nodeId: string }): NodeMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ node: opts.nodeId });
  collectDefaultMetrics({ register: registry });

  // Touched by every answered request: plain cells, written out at scrape time (request-metrics.ts).
  const requests = new RequestMetrics(latencyBuckets, { node: opts.nodeId });
  const webhookArrivals = new Counter({
    name: 'svc_webhook_arrivals_total',
    help: 'Webhook deliveries accepted (2xx), by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const webhookRefusals = new Counter({
    name: 'svc_webhook_refusals_total',
    help: 'Webhook deliveries refused (any other status), by route pattern and status.',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const shared = { node: opts.nodeId };
  // Touched by every stream publish (several a tool round): plain cells too.
  const publishSeconds = new HistogramCells(
    {
      name: 'svc_bus_publish_seconds',
      help: 'Time from a stream publish to its acknowledgement, by subject family and outcome.',
      labelNames: ['subject', 'outcome'],
      shared,
    },
    latencyBuckets,
  );
  const turns = new Counter({
    name: 'svc_turns_total',
    help: 'Turns this node completed, by seat and outcome (completed or failed).',
    labelNames: ['seat', 'outcome'] as const,
    registers: [registry],
  });
  // Touched by every spend record (one a model call).
  const modelCalls = new CounterCells({
    name: 'svc_model_calls_total',
    help: 'Model calls this node recorded, by seat, provider and model.',
    labelNames: ['seat', 'provider', 'model'],
    shared,
  });
  const tokens = new CounterCells({
    name: 'svc_tokens_total',
    help: 'Tokens this node recorded, by seat, model and kind (input, output, cache_read, cache_write).',
    labelNames: ['seat', 'model', 'kind'],
    shared,
  });
  const droppedSpans = new Counter({
    name: 'svc_tracing_spans_dropped_total',
    help: 'Spans the tracing SDK dropped because its export queue was full (the collector slow or away).',
    registers: [registry],
  });
  const cells = [publishSeconds, modelCalls, tokens];
  let instrumented: Bus | null = null;
  new Gauge({
    name: 'svc_projection_lag_messages',
    help: "Messages on a projection's stream not yet folded into it, by projection and stream.",
    labelNames: ['projection', 'stream'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const bus = instrumented;
      // The link down, a stream read waits for the reconnect (10 s each): the scrape would outlast
      // Prometheus's timeout and every other figure would be lost with the lag.
      if (bus === null || !bus.linked()) return;
      const positions = projectionPositions(bus);
      const last = await lastSequences(bus, [...new Set(positions.map((p) => p.stream))]);
      for (const p of positions) {
        const lastSeq = last.get(p.stream);
        if (lastSeq !== undefined)
          this.set({ projection: p.name, stream: p.stream }, Math.max(0, lastSeq - p.seq()));
      }
    },
  });

  /** A spend record published as bytes of its own making (not through `spendBytes`), checked. */
  const spendOf = (data: Uint8Array): SpendRecord | null => {
    const record = SpendRecord.safeParse(JSON.parse(decoder.decode(data)));
    return record.success ? record.data : null;
  };
  /** Counts what a stored publish carried: a completed turn, a model call's tokens. */
  const counted = (subject: string, data: Uint8Array): void => {
    if (subject.startsWith('svc.spend.')) {
      const r = builtSpend(data) ?? spendOf(data);
      if (r === null) return;
      modelCalls.inc([r.handle, r.provider, r.model]);
      tokens.inc([r.handle, r.model, 'input'], r.input_tokens);
      tokens.inc([r.handle, r.model, 'output'], r.output_tokens);
      tokens.inc([r.handle, r.model, 'cache_read'], r.cache_read_tokens);
      tokens.inc([r.handle, r.model, 'cache_write'], r.cache_write_tokens);
    } else if (subject === 'svc.events.agent_turn_completed') {
      const event = EventRecord.safeParse(JSON.parse(decoder.decode(data)));
      if (!event.success) return;
      const failed = event.data.failed || event.data.payload['failed'] === true;
      turns.inc({ seat: event.data.agent_id ?? event.data.actor, outcome: failed ? 'failed' : 'completed' });
    }
  };

  return {
    registry,
    requests: {
      answered(r: AnsweredRequest): void {
        const route = r.route ?? 'unmatched';
        requests.observe(r.method, route, r.status, r.seconds);
        // Deliveries are POSTs; a GET there is a browser landing (chat OAuth, code-host app setup), and a 405
        // says the route takes no POST at all (a landing): neither is a delivery.
        if (r.method !== 'POST' || r.status === 405 || !route.startsWith('/webhooks/')) return;
        if (r.status >= 200 && r.status < 300) webhookArrivals.inc({ route });
        else webhookRefusals.inc({ route, status: String(r.status) });
      },
    },
    spansDropped(count: number): void {
      droppedSpans.inc(count);
    },
    instrument(bus: Bus): Bus {
      const publish = async (subject: string, data: Uint8Array, opts?: PublishOptions): Promise<PubAck> => {
        const started = performance.now();
        const family = subjectFamily(subject);
        try {
          const ack = await bus.publish(subject, data, opts);
          publishSeconds.observe([family, 'ok'], (performance.now() - started) / 1000);
          if (!ack.duplicate) {
            try {
              counted(subject, data);
            } catch {
              // Not JSON: nothing to count; the publish itself stands.
            }
          }
          return ack;
        } catch (error) {
          publishSeconds.observe([family, 'error'], (performance.now() - started) / 1000);
          throw error;
        }
      };
      // Bound once per method (the bus is called a few times a round): the bound copy is kept with the
      // method it was made of, so a method replaced on the bus is bound afresh.
      const bound = new Map<PropertyKey, { of: unknown; fn: unknown }>();
      instrumented = new Proxy(bus, {
        get(target, prop) {
          if (prop === 'publish') return publish;
          const value: unknown = Reflect.get(target, prop, target);
          if (typeof value !== 'function') return value;
          const kept = bound.get(prop);
          if (kept !== undefined && kept.of === value) return kept.fn;
          const fn = (value as (...a: unknown[]) => unknown).bind(target);
          bound.set(prop, { of: value, fn });
          return fn;
        },
      });
      return instrumented;
    },
    async render() {
      return {
        contentType: registry.contentType,
        text: [
          withoutEmptyLoopWindow(await registry.metrics()),
          requests.render(),
          ...cells.map((c) => c.render()),
        ].join('\n'),
      };
    },
  };
}
