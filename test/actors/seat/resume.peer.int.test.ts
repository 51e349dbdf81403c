/**
 * A turn handed over between nodes: two seats runtimes on one memory bus stand for two `seats` nodes. The
 * holder drains while a tool call runs; its grace runs out, the turn is cut for shutdown and the lease
 * released; the peer takes the seat at once and resumes the turn from its journal — the tool's side effect
 * (a stdio MCP server's ledger line) happens once, and the turn completes once, on the peer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  createMemoryStore,
  createProviderRegistry,
  startSeatsRuntime,
  type SeatsRuntime,
} from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus, Streams, Subjects } from '../../../bus/index.js';
import { EventRecord, Payloads, type InboxMessage } from '../../../schema/index.js';
import { startToolServers } from '../../../scripts/toolservers-wiring.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import { captureLogs } from '../toolservers/harness.js';
import { company } from './harness.js';
import { ledgerLines, ticketsServer } from '../../scripts/fixtures/tickets.js';

const decode = (data: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(data));

t.test('a drained holder hands a turn cut mid tool call to its peer, which resumes it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-resume-peer-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ledger = join(dir, 'ledger.jsonl');
  const bus = await openMemoryBus({});
  const catalogue = await ensureCatalogue(bus);
  const llm = await startLlmServer({
    wire: 'openai',
    script: [
      {
        kind: 'text',
        text: '{"decision":"plan","steps":["file"],"success_criteria":["filed"],"tools":["tickets_create_ticket"]}',
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      {
        kind: 'tool_calls',
        calls: [{ id: 'c1', name: 'tickets_create_ticket', arguments: { title: 'T-9', hold: true } }],
        usage: { prompt_tokens: 120, completion_tokens: 10 },
      },
      { kind: 'text', text: 'Filed T-9.', usage: { prompt_tokens: 150, completion_tokens: 5 } },
      {
        kind: 'text',
        text: '{"verdict":"done","notes":"filed"}',
        usage: { prompt_tokens: 90, completion_tokens: 8 },
      },
    ],
  });
  const doc = company(llm.baseUrl, {
    mcp_servers: [ticketsServer(ledger)],
  });
  const stops: (() => Promise<void>)[] = [];
  t.teardown(async () => {
    for (const stop of stops.reverse()) await stop();
    await bus.close();
    await llm.close();
  });

  const logs = captureLogs();
  const node = async (id: string): Promise<SeatsRuntime> => {
    const registry = createProviderRegistry({ document: doc, resolve: () => undefined });
    const tools = startToolServers({
      bus,
      nodeId: id,
      logger: logs.logger.child({ node: id }),
      memory: createMemoryStore({ kv: catalogue.memory }),
    });
    const runtime = startSeatsRuntime({
      bus,
      coord: catalogue.coord,
      turnsDone: catalogue.turnsDone,
      nodeId: id,
      logger: logs.logger.child({ node: id }),
      llm: registry,
      tools: tools.router,
      needs: tools.needs,
      lease: { ttlMs: 30_000 },
    });
    stops.push(async () => {
      await runtime.stop();
      await tools.stop();
    });
    await registry.apply(doc);
    await tools.subsystem.apply(doc, null);
    await runtime.turnEngine.apply(doc, null);
    await runtime.org.apply(doc, null);
    await runtime.inboxes.apply(doc, null);
    return runtime;
  };

  const a = await node('node-a');
  t.ok(a.holds('ada'), 'node-a, first, holds the seat');
  const b = await node('node-b');
  t.notOk(b.holds('ada'));

  const wake: InboxMessage = {
    id: 'wake-peer',
    kind: 'mention',
    source: 'test',
    received_at: new Date().toISOString(),
    trace_id: 'f'.repeat(32),
    summary: 'Please file a ticket',
    payload: {},
  };
  await bus.publish(Subjects.agentInbox('ada'), new TextEncoder().encode(JSON.stringify(wake)));
  await logs.waitFor((l) => l.msg === 'tool server stderr' && /^holding /m.test(String(l['stderr'])));

  // node-a drains: the grace runs out, the turn is cut and the lease released for the peer.
  const taken = new Promise<void>((resolve) => b.onSeatsChanged(() => b.holds('ada') && resolve()));
  await a.drain(50);
  await a.stop();
  await taken;

  let found: (record: EventRecord) => void = () => undefined;
  const completion = new Promise<EventRecord>((resolve) => (found = resolve));
  const follow = await bus.follow(Streams.Events, { fromSeq: 1 }, (msg) => {
    const record = EventRecord.parse(decode(msg.data));
    if (record.type === 'agent_turn_completed') found(record);
  });
  const completed = await completion;
  await follow.stop();
  t.match(completed.source, /^node-b\//, 'the peer completed the turn');
  const turn = Payloads.AgentTurnCompleted.parse(completed.payload);
  t.equal(turn.failed, false);
  t.equal(turn.total_tokens, 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8, 'every model call counted once');
  const lines = ledgerLines(ledger);
  t.equal(lines.length, 1, 'the ticket was created once');
  t.equal(llm.requests.length, 4, 'no model round asked twice');
  t.match(JSON.stringify(llm.requests[2]!.body), /outcome unknown — check before retrying/);

  const events: EventRecord[] = [];
  for await (const msg of bus.replay(Streams.Events)) events.push(EventRecord.parse(decode(msg.data)));
  const mine = events.filter((e) => e.trace_id === wake.trace_id);
  t.same(
    mine.filter((e) => e.type === 'agent_phase_started').map((e) => e.payload['phase']),
    ['plan', 'execute', 'review'],
    'each phase started once across the two nodes',
  );
  t.same(
    mine
      .filter((e) => e.type === 'agent_phase_completed')
      .map((e) => [e.payload['phase'], e.payload['failed']]),
    [
      ['plan', false],
      ['execute', false],
      ['review', false],
    ],
    'each phase recorded once, none failed',
  );
  t.equal(mine.filter((e) => e.type === 'agent_turn_completed').length, 1, 'one completion');
});
