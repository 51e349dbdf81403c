/**
 * A deploy of the node running a turn, with a peer: two `svc serve` children on one JetStream server, the
 * local fake model and a stdio MCP server that appends each call to a ledger. SIGTERM while the seat's
 * MCP tool call runs, with a 1 s turn grace: the holder cuts the turn for shutdown and releases the seat,
 * the peer takes it and resumes the turn from its journal — the call in flight is not repeated (the model
 * reads "outcome unknown"), the side effect happened once, and the turn completes once.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ensureCatalogue, openBus, Streams, Subjects } from '../../bus/index.js';
import { EventRecord, Payloads, type InboxMessage } from '../../schema/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';

const ticketServer = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'ticket-mcp-server.mjs');
const usage = { prompt_tokens: 10, completion_tokens: 5 };
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["file it"],"success_criteria":["filed"],"tools":["tickets_create_ticket"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    calls: [{ id: 'c1', name: 'tickets_create_ticket', arguments: { title: 'T-9', hold: true } }],
    usage,
  },
  { kind: 'text', text: 'The ticket may exist; I will check before filing again.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"reported"}', usage },
];

t.test(
  'SIGTERM mid tool call with a peer: the peer resumes the turn, the side effect once, one completion',
  async (t) => {
    const nats = await startNatsServer({ t });
    const dir = mkdtempSync(join(tmpdir(), 'svc-ledger-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const ledger = join(dir, 'ledger.jsonl');
    const llm = await startLlmServer({ wire: 'openai', script });
    t.teardown(() => llm.close());
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);

    const node = 'turn_grace_seconds: 1';
    const a = await startFleetNode(t, 'node-a', nats.url, { node });
    const company = {
      name: 'Acme',
      timezone: 'UTC',
      providers: {
        llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: llm.baseUrl } },
        llm_order: ['local'],
      },
      mcp_servers: [
        {
          name: 'tickets',
          command: process.execPath,
          args: [ticketServer],
          env: { LEDGER_FILE: ledger },
          tool_prefix: 'tickets_',
        },
      ],
      roles: [{ name: 'Ada' }],
    };
    const put = await fetch(`${a.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'peer' },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201);
    await a.run.waitForLog((l) => l.msg === 'config applied');
    const b = await startFleetNode(t, 'node-b', nats.url, { node });
    await b.run.waitForLog((l) => l.msg === 'config applied');

    const wake: InboxMessage = {
      id: randomUUID(),
      kind: 'mention',
      source: 'test',
      received_at: new Date().toISOString(),
      trace_id: randomUUID().replaceAll('-', ''),
      summary: 'File a ticket',
      payload: {},
    };
    await bus.publish(Subjects.agentInbox('ada'), new TextEncoder().encode(JSON.stringify(wake)));
    await a.run.waitForLog(
      (l) => l.msg === 'tool server stderr' && /^holding create_ticket/m.test(String(l['stderr'])),
    );
    a.run.kill('SIGTERM');
    await a.run.waitForLog((l) => l.msg === 'turn cut for shutdown; handed over');
    t.equal(await a.run.exited, 0, 'the holder drains and exits 0');

    await b.run.waitForLog((l) => l.msg === 'turn resumed');
    await b.run.waitForLog((l) => l.msg === 'turn completed');
    const lines = existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').filter(Boolean) : [];
    t.equal(lines.length, 1, 'the ticket was created once');
    t.equal(llm.requests.length, 4, 'plan and the tool-calling answer were not asked again');
    t.match(JSON.stringify(llm.requests[2]!.body), /outcome unknown — check before retrying/);

    const events: EventRecord[] = [];
    for await (const msg of bus.replay(Streams.Events))
      events.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data))));
    const completed = events.filter((e) => e.type === 'agent_turn_completed');
    t.equal(completed.length, 1, 'one completion');
    const turn = Payloads.AgentTurnCompleted.parse(completed[0]!.payload);
    t.equal(turn.failed, false);
    t.same(
      events.filter((e) => e.type === 'agent_phase_started').map((e) => e.payload['phase']),
      ['plan', 'execute', 'review'],
      'each phase started once across the two nodes',
    );
    t.equal(turn.total_tokens, 4 * 15, 'every answered model call counted once');
    t.notMatch(JSON.stringify(events), /the turn was stopped/, 'nothing reads as an operator stop');
  },
);
