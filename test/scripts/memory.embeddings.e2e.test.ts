/**
 * `providers.embeddings` inside `svc serve` (on JetStream, so the test can wake a seat on the node's own
 * inbox): a seat's notes are embedded by the configured server, its `memory_recall` ranks them by meaning,
 * and the memory view never shows a vector.
 */
import t from 'tap';
import { startEmbeddingsServer } from '../fixtures/llm/embeddings-server.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { localProviders } from '../fixtures/llm/providers.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { mentionWake, queueWake } from '../harness/wake.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const INVOICES = 'Invoices go out on the first of the month';
const CAFETERIA = 'The cafeteria closes at three';

/** The text of the tool result that answered `callId`, as the model was sent it. */
function toolResult(body: Record<string, unknown> | null, callId: string): string | null {
  const messages = (body?.['messages'] ?? []) as Array<Record<string, unknown>>;
  const found = messages.find((m) => m['role'] === 'tool' && m['tool_call_id'] === callId);
  if (!found) return null;
  const content = found['content'];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content
    .map((part) => (part as { text?: unknown }).text)
    .filter((text): text is string => typeof text === 'string')
    .join('');
}

t.test(
  "a served seat's recall with embeddings on finds a note by meaning that shares no word with the query",
  async (t) => {
    const emb = await startEmbeddingsServer();
    t.teardown(() => emb.close());
    const llm = await startLlmServer({
      wire: 'openai',
      script: [
        {
          kind: 'text',
          text: '{"decision":"plan","steps":["note","recall"],"success_criteria":["recalled"],"tools":["memory_remember","memory_recall"]}',
          usage,
        },
        {
          kind: 'tool_calls',
          calls: [
            { id: 'm1', name: 'memory_remember', arguments: { content: CAFETERIA } },
            { id: 'm2', name: 'memory_remember', arguments: { content: INVOICES } },
          ],
          usage,
        },
        {
          kind: 'tool_calls',
          calls: [{ id: 'r1', name: 'memory_recall', arguments: { query: 'billing', limit: 2 } }],
          usage,
        },
        { kind: 'text', text: 'Recalled the billing day.', usage },
        { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
      ],
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);

    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-summary': 'embeddings',
      },
      body: JSON.stringify({
        name: 'Acme',
        providers: {
          ...localProviders(llm.baseUrl),
          embeddings: { type: 'openai-compatible', base_url: emb.baseUrl, model: 'emb-test', dimensions: 64 },
        },
        roles: [{ name: 'Ada' }],
      }),
    });
    t.equal(put.status, 201);
    const answer = (await put.json()) as { warnings?: Array<{ path?: string }> };
    t.notOk(
      (answer.warnings ?? []).some((w) => String(w.path ?? '').includes('embeddings')),
      'a usable block answers no not_applied warning',
    );
    await node.run.waitForLog((l) => l.msg === 'config applied');

    await queueWake(bus, 'ada', mentionWake('When do invoices go out?'));

    // The request after the recall carries its result: the model's fourth call.
    await llm.waitForRequests(4);
    const recalled = toolResult(llm.requests[3]!.body, 'r1');
    t.ok(recalled, 'the recall result reached the model');
    const rows = JSON.parse(recalled!) as Array<{ content: string; embedding?: unknown }>;
    t.equal(rows[0]?.content, INVOICES, '"billing" finds the invoices note first, though no word is shared');
    t.notOk(
      rows.some((r) => 'embedding' in r),
      'the model is never shown a vector',
    );

    const asked = emb.requests.filter((r) => r.path === '/v1/embeddings');
    t.ok(asked.length >= 3, 'each note and the query were embedded by the configured server');
    t.ok(
      asked.every((r) => r.body.model === 'emb-test' && r.body.dimensions === 64),
      'with the configured model and width',
    );

    const view = await (await fetch(`${node.url}/agents/ada/memory`)).text();
    t.match(view, INVOICES, 'the memory view shows the note');
    t.notMatch(view, /"embedding"/, 'and never its vector');
  },
);
