/**
 * The node's own spans (ops/tracing.md), on a real `svc serve` child whose `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is a small OTLP/JSON receiver here: request spans by route template (no path, no credential), and a
 * seat's turn against the local fake model as turn → phase → model call / tool call spans in the wake's
 * trace. Spans are flushed by the drain, so the node's SIGTERM is the synchronisation.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { agentId, uuidv5, type InboxMessage } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { bootNode, storeDir, TOKEN, type StoreDir } from '../harness/serve-store.js';
import { localProviders } from '../fixtures/llm/providers.js';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
  status?: { code?: number; message?: string };
}
interface Export {
  resourceSpans: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

const valueOf = (v: AnyValue): string | number | boolean | undefined =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.boolValue ??
  v.doubleValue;
const attrs = (list: Array<{ key: string; value: AnyValue }> = []): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

async function startReceiver(t: Test) {
  const bodies: Array<{ path: string; type: string; text: string }> = [];
  const read = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = createServer((req, res) => {
    void read(req).then((text) => {
      bodies.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', text });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const spans = () =>
    bodies.flatMap((b) =>
      (JSON.parse(b.text) as Export).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) =>
          ss.spans.map((s) => ({
            ...s,
            attrs: attrs(s.attributes),
            resource: attrs(rs.resource?.attributes),
          })),
        ),
      ),
    );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, spans };
}

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["ask Hu"],"success_criteria":["asked"],"tools":["ask_human"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [
      { id: 'a1', name: 'ask_human', arguments: { to: 'hu', question: 'Which branch?', urgency: 'low' } },
    ],
    usage,
  },
  { kind: 'text', text: 'Asked Hu about the branch.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"asked"}', usage },
];

const company = (baseUrl: string) => ({
  name: 'Acme',
  timezone: 'UTC',
  providers: localProviders(baseUrl),
  roles: [{ name: 'Ada' }, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
});

/** Queues a wake for `ada` in the store while no node holds it. */
async function publishWake(store: StoreDir, wake: InboxMessage): Promise<void> {
  const bus = await openMemoryBus({ storeDir: store.storeDir });
  await ensureCatalogue(bus);
  await bus.publish(Subjects.agentInbox('ada'), new TextEncoder().encode(JSON.stringify(wake)));
  await bus.close();
}

t.test('request, turn, phase, model call and tool call spans reach the OTLP endpoint', async (t) => {
  const receiver = await startReceiver(t);
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  const store = storeDir(t);
  const wake: InboxMessage = {
    id: randomUUID(),
    kind: 'mention',
    source: 'test',
    received_at: new Date().toISOString(),
    trace_id: randomUUID().replaceAll('-', ''),
    summary: 'Find out the release branch',
    payload: {},
  };
  await publishWake(store, wake);
  const turnId = uuidv5(agentId('Acme', 'ada'), wake.id);

  const node = await bootNode(t, store, '', {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'svc-under-test',
  });
  const put = await node.call('PUT', '/config', {
    body: JSON.stringify(company(llm.baseUrl)),
    headers: { 'content-type': 'application/json', 'x-summary': 'tracing test' },
  });
  t.equal(put.status, 201);
  await node.run.waitForLog((l) => l.msg === 'turn completed');
  // A parameter the route does not read is refused (400 bad_params, naming it, never its value): spanned too.
  const row = await node.call('GET', '/agents/ada?token=query-secret-1234');
  t.equal(row.status, 400);
  t.equal((await node.call('GET', '/no/such/route')).status, 404);
  t.equal(await node.stop(), 0, 'the drain flushes the spans and the node exits cleanly');

  t.ok(receiver.bodies.length > 0, 'the node exported');
  t.ok(
    receiver.bodies.every((b) => b.path === '/v1/traces' && b.type.startsWith('application/json')),
    'OTLP/JSON on /v1/traces',
  );
  const spans = receiver.spans();
  t.equal(spans[0]?.resource['service.name'], 'svc-under-test', 'OTEL_SERVICE_NAME names the service');
  const text = receiver.bodies.map((b) => b.text).join('\n');
  t.notOk(text.includes(TOKEN), 'no bearer token in any span');
  t.notOk(text.includes('query-secret-1234'), 'no query string in any span');

  // Requests: server spans named by the route template.
  const putSpan = spans.find((s) => s.name === 'PUT /config');
  t.match(putSpan, {
    kind: 2,
    attrs: { 'http.request.method': 'PUT', 'http.route': '/config', 'http.response.status_code': 201 },
  });
  const agentSpan = spans.find((s) => s.attrs['http.route'] === '/agents/:id');
  t.match(agentSpan, {
    name: 'GET /agents/:id',
    attrs: { 'http.request.method': 'GET', 'http.response.status_code': 400 },
  });
  t.match(
    spans.find((s) => s.attrs['http.response.status_code'] === 404),
    { name: 'GET' },
    'an unrouted request is named by its method only',
  );

  // The turn: in the wake's trace, its phases its children, model and tool calls theirs.
  const turn = spans.find((s) => s.name === 'turn');
  t.match(turn, {
    traceId: wake.trace_id,
    attrs: { 'svc.seat': 'ada', 'svc.turn_id': turnId, 'svc.wake_id': wake.id, 'svc.trigger': 'mention' },
  });
  t.notOk(turn?.parentSpanId, 'the turn is the root of its trace');
  const phases = spans.filter((s) => s.name.startsWith('phase '));
  t.same(phases.map((s) => s.name).sort(), ['phase execute', 'phase plan', 'phase review']);
  t.ok(
    phases.every((p) => p.parentSpanId === turn?.spanId && p.traceId === wake.trace_id),
    'each phase is a child of the turn',
  );
  const byId = new Map(phases.map((p) => [p.spanId, p.name]));
  const chats = spans.filter((s) => s.name.startsWith('chat'));
  t.same(chats.map((c) => byId.get(c.parentSpanId ?? '')).sort(), [
    'phase execute',
    'phase execute',
    'phase plan',
    'phase review',
  ]);
  t.match(chats[0], {
    kind: 3,
    attrs: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'local',
      'gen_ai.response.model': 'local-1',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
    },
  });
  const tool = spans.find((s) => s.name === 'execute_tool ask_human');
  t.match(tool, { attrs: { 'gen_ai.tool.name': 'ask_human', 'svc.tool.origin': String } });
  t.equal(byId.get(tool?.parentSpanId ?? ''), 'phase execute', 'the tool call is a child of execute');
});
