/**
 * Fuzzing the turn engine of a running `svc serve` through its model: each case wakes an agent seat and the
 * local model server (Anthropic's and OpenAI's wires, each with its request checks) answers the turn's calls with a
 * generated script — plans and verdicts well formed or not, free text, tool calls naming the offered tools
 * or none with arguments of any shape (invalid JSON too), error statuses, malformed and cut streams, the
 * wire's in-stream errors. Whatever the model says, every wake's turn ends (`agent_turn_completed`), every
 * request the engine sends passes the wire's own checks (roles alternate, each tool result answers a tool
 * use of the turn before, no empty text), the node logs no error and keeps answering.
 * `FUZZ_RUNS` sets the number of cases (default 1500, a fiftieth here: each case is a whole turn).
 */
import fc from 'fast-check';
import t from 'tap';
import { anthropicRequestProblem } from '../fixtures/llm/anthropic.wire.js';
import { startLlmServer, type Wire } from '../fixtures/llm/llm-server.js';
import { openaiRequestProblem } from '../fixtures/llm/openai.wire.js';
import type { RecordedRequest, Step } from '../fixtures/llm/script.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

const runs = Math.ceil(Number(process.env['FUZZ_RUNS'] ?? 1500) / 50);
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : undefined;
// Each wire reads its own usage fields.
const usage = { input_tokens: 12, output_tokens: 7, prompt_tokens: 12, completion_tokens: 7 };
/** Tools that would leave the seat waiting on someone (a question, a coding run): not called here. */
const waiting = new Set([
  'ask_human',
  'withdraw_question',
  'run_sandbox',
  'answer_sandbox',
  'cancel_sandbox',
]);

/** A step as generated: a tool call names the offered tool at `tool` (modulo their number) or `name`. */
type Draft =
  | { kind: 'text'; text: string }
  | { kind: 'calls'; calls: Array<{ tool: number; name: string | null; args: unknown }>; text: string }
  | { kind: 'status'; status: number }
  | { kind: 'raw'; body: string }
  | { kind: 'truncate'; text: string }
  | { kind: 'error_event'; errorType: string };

const phaseText = fc.oneof(
  fc.constantFrom(
    '{"decision":"plan","steps":["look"],"success_criteria":["done"],"tools":["memory_recall"]}',
    '{"decision":"plan","steps":[],"success_criteria":[],"tools":[]}',
    '{"decision":"done"}',
    '{"verdict":"done","notes":"ok"}',
    '{"verdict":"revise","notes":"again"}',
    '{"verdict":"blocked"}',
    '{"decision":',
    '```json\n{"verdict":"done"}\n```',
    '',
  ),
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 3 }),
);
const args = fc.oneof(
  fc.dictionary(
    fc.constantFrom('content', 'query', 'handle', 'project', 'title', 'key', 'to', 'body', 'id', 'limit'),
    fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.boolean(), fc.constant(null)),
    { maxKeys: 4 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 30 }), // sent as is: not JSON, or JSON of another shape
);
const draft: fc.Arbitrary<Draft> = fc.oneof(
  { arbitrary: phaseText.map((text) => ({ kind: 'text' as const, text })), weight: 5 },
  {
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      calls: fc.array(
        fc.record({
          tool: fc.nat(),
          name: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { freq: 6 }),
          args,
        }),
        { minLength: 1, maxLength: 3 },
      ),
      text: fc.string({ maxLength: 40 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.constantFrom(400, 429, 500, 502, 503, 529).map((status) => ({ kind: 'status' as const, status })), weight: 1 }, // prettier-ignore
  { arbitrary: fc.string({ maxLength: 120 }).map((body) => ({ kind: 'raw' as const, body: `event: message_start\ndata: ${body}\n\n` })), weight: 1 }, // prettier-ignore
  { arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ kind: 'truncate' as const, text })), weight: 1 },
  { arbitrary: fc.constantFrom('overloaded_error', 'api_error', 'invalid_request_error').map((errorType) => ({ kind: 'error_event' as const, errorType })), weight: 1 }, // prettier-ignore
);

/** The offered tools' names in a request (Anthropic: `tools[].name`; OpenAI: `tools[].function.name`). */
const offered = (req: RecordedRequest): string[] =>
  ((req.body?.['tools'] as Array<{ name?: unknown; function?: { name?: unknown } }> | undefined) ?? [])
    .map((tool) => String(tool.name ?? tool.function?.name))
    .filter((name) => !waiting.has(name));

function stepOf(d: Draft, req: RecordedRequest, n: number): Step {
  switch (d.kind) {
    case 'text':
      return { kind: 'text', text: d.text, usage };
    case 'calls': {
      const tools = offered(req);
      return {
        kind: 'tool_calls',
        text: d.text,
        usage,
        calls: d.calls.map((c, i) => ({
          id: `toolu_${n}_${i}`,
          name: c.name ?? tools[c.tool % Math.max(1, tools.length)] ?? 'memory_recall',
          arguments: c.args,
        })),
      };
    }
    case 'status':
      return { kind: 'status', status: d.status, headers: d.status === 429 ? { 'retry-after': '1' } : {} };
    case 'raw':
      return { kind: 'raw', body: d.body };
    case 'truncate':
      return { kind: 'truncate', text: d.text };
    case 'error_event':
      return { kind: 'error_event', errorType: d.errorType };
  }
}

const problemOf = { anthropic: anthropicRequestProblem, openai: openaiRequestProblem } as const;
const providerOf = { anthropic: 'anthropic', openai: 'openai-compatible' } as const;

for (const wire of ['anthropic', 'openai'] as const satisfies readonly Wire[])
  t.test(
    `whatever the model answers on the ${wire} wire, every turn ends and every request the engine sends is well formed`,
    async (t) => {
      let queue: Draft[] = [];
      // Once a case's drafts are spent the model ends each phase in one word, so every turn can end.
      const llm = await startLlmServer({
        wire,
        script: (req, n) => {
          const next = queue.shift();
          return next
            ? stepOf(next, req, n)
            : { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };
        },
      });
      t.teardown(() => llm.close());
      const { node, bus } = await startBusNode(t, 'tracker: {backend: native}');
      const company = {
        name: 'Acme',
        providers: {
          llm: { main: { type: providerOf[wire], model: 'fuzz-1', base_url: llm.baseUrl, api_keys: ['sk-fuzz'], timeout_seconds: 5 } }, // prettier-ignore
          llm_order: ['main'],
        },
        units: [
          {
            name: 'Engineering',
            type: 'team',
            integrations: { work: { project: 'ENG' } },
            roles: [
              { name: 'Ada', token_budget: 0 },
              { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } },
            ],
          },
        ],
      };
      const put = await fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'x-summary': 'fuzz',
        },
        body: JSON.stringify(company),
      });
      t.equal(put.status, 201, await put.clone().text());
      await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'ada');

      const ends = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(fc.array(draft, { minLength: 1, maxLength: 10 }), async (drafts) => {
          queue = [...drafts];
          const wake = mentionWake('Anything to do?');
          await queueWake(bus, 'ada', wake);
          const trace = await until(
            async () => (await (await fetch(`${node.url}/events/trace/${wake.trace_id}`)).json()) as { events?: Array<{ type: string; payload?: { failed?: boolean; phases?: string[] } }> }, // prettier-ignore
            (r) => (r.events ?? []).some((e) => e.type === 'agent_turn_completed'),
            60_000,
          );
          const done = trace.events?.find((e) => e.type === 'agent_turn_completed');
          const how = `${done?.payload?.failed ? 'failed' : 'completed'} after ${(done?.payload?.phases ?? []).join('+') || 'no phase'}`;
          ends.set(how, (ends.get(how) ?? 0) + 1);
          const refused = llm.requests.map(problemOf[wire]).filter((p) => p !== null);
          if (refused.length > 0)
            throw new Error(`the engine sent a request the wire refuses: ${refused[0]}`);
        }),
        { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
      );
      t.comment(
        `turns: ${[...ends].map(([k, n]) => `${k}×${n}`).join(' ')}; model calls: ${llm.requests.length}`,
      );
      const errors = node.run.lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= 50);
      t.same(
        errors.map(
          (l) =>
            `${JSON.stringify(l['event'] ?? l['msg'])}: ${JSON.stringify(l['err'] ?? null).slice(0, 300)}`,
        ),
        [],
        'the node logged no error',
      );
      t.equal((await fetch(`${node.url}/health`)).status, 200, 'the node still answers');
    },
  );
