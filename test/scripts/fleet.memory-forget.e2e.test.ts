/**
 * A note a seat forgets leaves its memory everywhere (ops/tool-servers.md "Builtin tools", ops/turn-engine.md
 * "Personal memory"): on three `svc serve` children of one nats-server — two ingress nodes that run no seat and a
 * seats node — a turn keeps two notes; a later turn recalls them and forgets one by the id recall showed. Both
 * ingress nodes' memory views stop listing it, and so does the first's after it restarts on its own store.
 */
import t from 'tap';
import { ensureCatalogue, openBus } from '../../bus/index.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { restartFleetNode, startFleetNode, until, type FleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const plan = (...tools: string[]): Step => ({
  kind: 'text',
  text: JSON.stringify({ decision: 'plan', steps: ['do it'], tools }),
  usage,
});
const done: Step = { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };

type Row = Record<string, unknown>;
interface View {
  personal_memories: { long: Row[]; short: Row[] };
  episodes: Row[];
}
const memoryOf = async (node: FleetNode): Promise<View> =>
  (await (await fetch(`${node.url}/agents/ada/memory`)).json()) as View;
const longNotes = (v: View): unknown[] => v.personal_memories.long.map((r) => r['content']);

/** The id of the recalled note `content`, read from the tool results the model was sent. */
function recalledId(body: unknown, content: string): string | null {
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  for (const m of messages) {
    if (m.role !== 'tool' || typeof m.content !== 'string') continue;
    try {
      const rows = JSON.parse(m.content) as Array<{ id: string; content: string }>;
      const row = Array.isArray(rows) ? rows.find((r) => r.content === content) : undefined;
      if (row) return row.id;
    } catch {
      // Not a recall's answer.
    }
  }
  return null;
}

t.test('a forgotten note leaves the memory view on every node of a fleet and after a restart', async (t) => {
  const nats = await startNatsServer({ t });
  const note = (id: string, content: string) => ({ id, name: 'memory_remember', arguments: { content } });
  const turns: Array<Step | ((body: unknown) => Step)> = [
    plan('memory_remember'),
    {
      kind: 'tool_calls',
      calls: [note('m1', 'Grace signs off releases'), note('m2', 'The freeze is on Mondays')],
      usage,
    },
    { kind: 'text', text: 'Noted both.', usage },
    done,
    plan('memory_recall', 'memory_forget'),
    { kind: 'tool_calls', calls: [{ id: 'r1', name: 'memory_recall', arguments: {} }], usage },
    (body) => ({
      kind: 'tool_calls',
      calls: [
        {
          id: 'f1',
          name: 'memory_forget',
          arguments: { id: recalledId(body, 'The freeze is on Mondays') ?? 'not-recalled' },
        },
      ],
      usage,
    }),
    { kind: 'text', text: 'Forgot the stale freeze day.', usage },
    done,
  ];
  let turnCalls = 0;
  const llm = await startLlmServer({
    wire: 'openai',
    script: (request) => {
      const step = turns[turnCalls++];
      if (step === undefined) return { kind: 'status', status: 500 };
      return typeof step === 'function' ? step(request.body) : step;
    },
  });
  t.teardown(() => llm.close());

  const front = await startFleetNode(t, 'node-front', nats.url, {
    node: 'roles: [ingress, data]',
    store: true,
  });
  const other = await startFleetNode(t, 'node-other', nats.url, { node: 'roles: [ingress]' });
  const seats = await startFleetNode(t, 'node-seats', nats.url, { node: 'roles: [seats]' });
  const put = await fetch(`${front.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'fleet' },
    body: JSON.stringify({ name: 'Acme', providers: localProviders(llm.baseUrl), roles: [{ name: 'Ada' }] }),
  });
  t.equal(put.status, 201);
  await seats.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');

  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  await queueWake(bus, 'ada', mentionWake('Keep the release facts'));
  const kept = await until(
    () => memoryOf(front),
    (v) => v.episodes.length === 1,
  );
  t.same(longNotes(kept).sort(), ['Grace signs off releases', 'The freeze is on Mondays']);

  await queueWake(bus, 'ada', mentionWake('The freeze day changed: drop the old note'));
  const after = await until(
    () => memoryOf(front),
    (v) => v.episodes.length === 2,
  );
  t.match(after.episodes[0], { tool_sequence: ['memory_recall', 'memory_forget'] });
  t.same(longNotes(after), ['Grace signs off releases'], 'the ingress node no longer lists the note');
  t.same(
    longNotes(
      await until(
        () => memoryOf(other),
        (v) => v.episodes.length === 2,
      ),
    ),
    ['Grace signs off releases'],
    'nor does the other ingress node',
  );
  const asked = llm.requests.map((r) => JSON.stringify(r.body));
  t.ok(
    asked.some((b) => b.includes('"role":"tool"') && b.includes('Forgot ')),
    'the model read that the note was forgotten',
  );

  front.run.kill('SIGTERM');
  t.equal(await front.run.exited, 0);
  const again = await restartFleetNode(t, front);
  const restarted = await until(
    () => memoryOf(again),
    (v) => v.episodes.length === 2,
  );
  t.same(longNotes(restarted), ['Grace signs off releases'], 'nor after a restart');
});
