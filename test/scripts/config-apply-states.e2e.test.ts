/**
 * A node's configuration posture through its applies, on a `svc serve` child (spec "Node configuration
 * state" and "Revision activation"): an apply reads `wait` until it ends and the node stays ready; the
 * subsystems run in the spec's order; a reload of the same payload does no work; learning and embeddings
 * changes are left for the next restart with a warning. A subsystem that fails late (the broker refuses a
 * new notification transport's consumer) rolls the node back: `isolated`, still ready, the revision still
 * active, the failure announced with what was applied before it; a drain then reads `shutting_down`.
 */
import t from 'tap';
import { Streams, Subjects, type Bus } from '../../bus/index.js';
import { RevisionApplied } from '../../schema/config.js';
import { call, health as healthAt, type Answer, type Json } from '../harness/api.js';
import { startBusNode } from '../harness/bus-node.js';
import { openConnection } from '../harness/raw-http.js';
import { TOKEN, type ServedNode } from '../harness/serve-node.js';
import { squattedTransport } from '../harness/squatted-transport.js';
import { heldToolServer } from '../harness/held-tool-server.js';
import { until } from '../harness/until.js';

const dec = new TextDecoder();
/** An LLM entry no seat calls in these tests (nothing wakes them): only its presence matters. */
const providers = {
  llm: { main: { type: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:9' } },
};

/** A write that must store a revision (201); resolves with its answer's body. */
async function write(node: ServedNode, method: string, path: string, body?: Json): Promise<Json> {
  const answer = await call(node.url, method, path, body);
  if (answer.status !== 201)
    throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const read = (node: ServedNode, path: string): Promise<Answer> => call(node.url, 'GET', path);
const health = (node: ServedNode): Promise<Json> => healthAt(node.url);

/** This node's `svc.config.revision_applied` announcement of `epoch`, once published. */
async function appliedAt(bus: Bus, epoch: number): Promise<RevisionApplied> {
  const all = async (): Promise<RevisionApplied[]> => {
    const out: RevisionApplied[] = [];
    for await (const msg of bus.replay(Streams.Config, { subject: Subjects.configRevisionApplied }))
      out.push(RevisionApplied.parse(JSON.parse(dec.decode(msg.data))));
    return out;
  };
  const rows = await until(all, (r) => r.some((a) => a.epoch === epoch), 20_000);
  return rows.find((a) => a.epoch === epoch)!;
}

t.test(
  'an apply reads wait and stays ready until it ends; subsystems in order; a same-payload reload does no work; learning and embeddings changes wait for a restart',
  async (t) => {
    const { node, bus } = await startBusNode(t);
    const base = { name: 'Acme', providers, roles: [{ name: 'Ada' }] };
    await write(node, 'PUT', '/config', base);
    await until(
      () => health(node),
      (h) => h['applied_epoch'] === 1 && h['status'] === 'ok',
    );

    // Epoch 2 starts a tool server that holds its handshake: the apply waits on it.
    const tool = await heldToolServer(t);
    await write(node, 'PUT', '/config', { ...base, mcp_servers: [{ name: 'slow', url: tool.url }] });
    await tool.asked;
    t.match(
      await health(node),
      { status: 'ok', posture: 'wait', configured: true, applied_epoch: 1 },
      'applying: posture wait, status ok, the prior epoch still applied',
    );
    const ready = await fetch(`${node.url}/ready`);
    t.equal(ready.status, 200, 'wait still answers /ready 200 on an ingress node');
    t.same(await ready.json(), { ready: true });
    tool.release();
    t.match(
      await until(
        () => health(node),
        (h) => h['applied_epoch'] === 2,
      ),
      { status: 'ok', posture: 'serve' },
      'the apply ended: serve',
    );
    const second = await appliedAt(bus, 2);
    t.match(second, { status: 'applied' });
    t.same(
      second.applied_subsystems,
      ['org', 'turn_engine', 'providers', 'tool_servers', 'seat_inboxes'],
      'org, turn engine, providers, then the restart-required items, in that order',
    );

    // A reload stores the same payload again: the new epoch, and no subsystem runs.
    await write(node, 'POST', '/config/reload');
    t.match(await appliedAt(bus, 3), { status: 'unchanged', applied_subsystems: [] });
    // The log line may reach the test after the announcement does.
    await node.run.waitForLog((l) => l.msg === 'config unchanged; epoch advanced' && l['epoch'] === 3);
    t.notOk(
      node.run.lines.some((l) => l.msg === 'config applied' && l['epoch'] === 3),
      'no apply ran',
    );

    // Learning settings are read at start: a change is stored, applied otherwise, and warned about.
    await write(node, 'PATCH', '/config', { learning: { enabled: false } });
    t.match(await appliedAt(bus, 4), { status: 'applied' });
    await node.run.waitForLog(
      (l) =>
        l.level === 40 &&
        /learning\.enabled changed to false; it takes effect at the next restart/.test(l.msg),
    );
    t.match(await read(node, '/config'), { body: { learning: { enabled: false } } }, 'the change is stored');

    // An embeddings change is not swapped in place: only the restart warning.
    await write(node, 'PATCH', '/config', {
      providers: {
        embeddings: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9', model: 'e', dimensions: 64 },
      },
    });
    t.match(await appliedAt(bus, 5), { status: 'applied' });
    const warned = await node.run.waitForLog(
      (l) => l['event'] === 'restart_required' && l['path'] === 'providers.embeddings',
    );
    t.equal(warned['level'], 40, 'a warning');
    t.notOk(
      node.run.lines.some((l) => l.msg === 'embeddings read at start: personal memory ranks by meaning'),
      'no embeddings client was built from the change',
    );
    t.match(await health(node), { status: 'ok', posture: 'serve', applied_epoch: 5 });
  },
);

t.test(
  'a subsystem failing late rolls the node back: isolated and ready, the revision still active, the failure names what was applied; a drain reads shutting_down',
  async (t) => {
    const { node, bus, nats } = await startBusNode(t);
    const first = await write(node, 'PUT', '/config', { name: 'Acme', providers, roles: [{ name: 'Ada' }] });
    await until(
      () => health(node),
      (h) => h['applied_epoch'] === 1 && h['status'] === 'ok',
    );
    t.same((await health(node))['seats'], ['ada']);

    // Another client already holds the transport's durable as a push consumer: the node cannot pull it.
    const transports = await squattedTransport(t, nats.url);

    // Epoch 2 adds a seat (org), a provider entry (providers) and the transport (restart-required items).
    const failing = await write(node, 'PUT', '/config', {
      name: 'Acme',
      providers: {
        llm: {
          ...providers.llm,
          spare: { type: 'openai-compatible', model: 's', base_url: 'http://127.0.0.1:9' },
        },
      },
      roles: [{ name: 'Ada' }, { name: 'Bo' }],
      notification_transports: transports,
    });
    const announced = await appliedAt(bus, 2);
    t.match(announced, {
      node: 'node-0',
      revision_id: failing['revision_id'],
      status: 'failed',
      posture: 'isolated',
      error: /^tool_servers: /,
    });
    t.same(
      announced.applied_subsystems,
      ['org', 'turn_engine', 'providers', 'tool_servers'],
      'the subsystems applied before the failure, in order',
    );

    const isolated = await until(
      () => health(node),
      (h) => h['status'] === 'isolated',
    );
    t.match(isolated, { posture: 'isolated', configured: true, applied_epoch: 1 });
    t.same(isolated['seats'], ['ada'], 'the seat the failed apply spawned is gone again');
    const ready = await fetch(`${node.url}/ready`);
    t.equal(ready.status, 200, 'isolated still answers /ready 200 on an ingress node');
    t.same(await ready.json(), { ready: true });
    const pool = await read(node, '/credential-pool');
    t.same(
      Object.keys(pool.body['providers'] as Json),
      ['main'],
      'the provider entries are the prior revision’s',
    );
    const revisions = (await read(node, '/config/revisions')).body['revisions'] as Json[];
    t.same(
      revisions.filter((r) => r['is_active'] === true).map((r) => r['revision_id']),
      [failing['revision_id']],
      'the failed revision stays the active one in the store',
    );
    t.ok(revisions.some((r) => r['revision_id'] === first['revision_id'] && r['is_active'] === false));

    // A drain outranks the diverged posture: an in-flight request holds the drain open to read it.
    const slow = await openConnection(node.port);
    const probe = await openConnection(node.port);
    const probe2 = await openConnection(node.port);
    t.teardown(() => [slow, probe, probe2].forEach((c) => c.close()));
    slow.write(
      `PUT /config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"name":`,
    );
    await until(
      () => health(node),
      (h) => Number(h['in_flight']) >= 1,
    );
    node.run.kill('SIGTERM');
    await node.run.waitForLog((l) => l.msg === 'drain started');
    const draining = await probe.request('GET', '/health');
    t.match(JSON.parse(draining.body), { status: 'shutting_down', posture: 'isolated', shutting_down: true });
    const notReady = await probe2.request('GET', '/ready');
    t.equal(notReady.status, 503);
    t.match(JSON.parse(notReady.body), { reason: 'draining', posture: 'isolated' });
    t.equal(await node.run.exited, 0);
  },
);
