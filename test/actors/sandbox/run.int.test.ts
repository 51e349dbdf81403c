/**
 * A seat with `sandbox` set hands a task to a detached run of the fake coding agent: the run sends OTLP
 * (forwarded upstream with the upstream's headers, which the run never sees), calls a seat tool through
 * `/mcp/{token}`, asks a question that a later turn — woken by it — answers, and finishes done.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { RecordedRequest, Step } from '../../fixtures/llm/script.js';
import { startCollector, startSandboxCompany } from './harness.js';

const plan = (tool: string): Step => ({
  kind: 'text',
  text: JSON.stringify({ decision: 'plan', steps: ['delegate'], success_criteria: ['done'], tools: [tool] }),
});
const review: Step = { kind: 'text', text: '{"verdict":"done","notes":"ok"}' };

/** The sandbox id the wake names (`Your coding run <id> asks: …`). */
const askedRun = (request: RecordedRequest): string =>
  /coding run ([0-9a-f-]{36}) asks/.exec(JSON.stringify(request.body))?.[1] ?? 'unknown';

t.test(
  'a run asks, a later turn answers it, and it finishes done with its telemetry and tool call',
  async (t) => {
    const collector = await startCollector(t);
    const script = (request: RecordedRequest, n: number): Step => {
      switch (n) {
        case 0:
          return plan('run_sandbox');
        case 1:
          return {
            kind: 'tool_calls',
            calls: [{ id: 'c1', name: 'run_sandbox', arguments: { task: 'Add the endpoint' } }],
          };
        case 2:
          return { kind: 'text', text: 'The run asked which branch; I will answer when woken.' };
        case 3:
          return review;
        case 4:
          return plan('answer_sandbox');
        case 5:
          return {
            kind: 'tool_calls',
            calls: [
              {
                id: 'c2',
                name: 'answer_sandbox',
                arguments: { sandbox_id: askedRun(request), answer: 'main' },
              },
            ],
          };
        case 6:
          return { kind: 'text', text: 'Answered; the run is done.' };
        default:
          return review;
      }
    };
    const h = await startSandboxCompany(t, {
      script,
      collector: collector.url,
      setup: ['echo prepared > setup.txt'],
      env: {
        FAKE_OTLP: '1',
        FAKE_TOOL: 'files_echo',
        FAKE_TOOL_ARGS: '{"text":"from the run"}',
        FAKE_QUESTION: 'Which branch?',
      },
    });
    t.ok(
      h.tools.router.toolsFor('bob').some((e) => e.name === 'run_sandbox'),
      'a seat with a sandbox is offered run_sandbox',
    );
    t.notOk(
      h.tools.router.toolsFor('ada').some((e) => e.name === 'run_sandbox' || e.name === 'answer_sandbox'),
      'a seat without one is not',
    );

    await h.wake('bob', undefined, 'Please add the endpoint');
    const asked = await h.waitRun((r) => r.status === 'awaiting_clarification');
    t.equal(asked.question, 'Which branch?');
    t.equal(asked.agent_handle, 'bob');
    t.ok(asked.paused_at);
    t.ok(
      existsSync(join(h.root, 'sandboxes', asked.sandbox_id, 'work', 'setup.txt')),
      'the setup step ran first',
    );

    const done = await h.waitRun((r) => r.sandbox_id === asked.sandbox_id && r.status === 'done');
    t.match(done.summary, /otlp=ok/, 'the run exported its span to the receiver with the OTLP exporter');
    t.match(done.summary, /otlp_headers=none/, 'the upstream headers never reached the run');
    t.match(done.summary, /tool=.*from the run/, 'the run called the seat tool through the bridge');
    t.notMatch(done.summary, /tools=[^;]*run_sandbox/, 'the bridge does not offer run_sandbox back');
    t.match(done.summary, /answer=main/, 'the answer of the later turn reached the run');
    t.equal(done.total_tokens, 42);
    t.equal(done.telemetry.spans, 1, 'the span was counted on the run');

    // The first turn's execute phase was suspended in run_sandbox until the question; a later one answered.
    const executed = (tool: string) =>
      h.waitFor(
        (e) =>
          e.type === 'agent_phase_completed' &&
          ((e.payload['tool_executions'] as Array<{ name: string }> | undefined) ?? []).some(
            (x) => x.name === tool,
          ),
      );
    const first = await executed('run_sandbox');
    const later = await executed('answer_sandbox');
    const resultOf = (e: typeof first, tool: string) =>
      (e.payload['tool_executions'] as Array<{ name: string; result?: string }>).find((x) => x.name === tool)
        ?.result;
    t.match(resultOf(first, 'run_sandbox'), /asks: Which branch\?/);
    t.match(resultOf(later, 'answer_sandbox'), /is done/);
    t.not(first.payload['turn_id'], later.payload['turn_id'], 'a later turn answered');
    await h.waitFor((e) => e.type === 'sandbox_run_completed');

    const types = (await h.events()).filter((e) => e.type.startsWith('sandbox_run_')).map((e) => e.type);
    t.same(types, [
      'sandbox_run_started',
      'sandbox_run_updated',
      'sandbox_run_paused',
      'sandbox_run_updated',
      'sandbox_run_completed',
    ]);
    const completed = (await h.events('sandbox_run_completed'))[0]!;
    t.equal(completed.trace_id, done.trace_id, 'the events are on the run trace');
    t.notOk('token_sha256' in completed.payload, 'the event carries the public run only');

    // Forwarded upstream with the upstream's headers.
    const forwarded = collector.received.find((r) => r.path === '/v1/traces');
    t.ok(forwarded, 'the export was forwarded');
    t.equal(forwarded?.headers['x-api-key'], 'upstream secret');
    const span = JSON.parse(forwarded!.body).resourceSpans[0].scopeSpans[0].spans[0];
    t.equal(span.traceId, done.trace_id, 'the span is in the run trace (TRACEPARENT)');
    t.equal(span.parentSpanId, done.span_id);
    const log = readFileSync(join(h.root, 'sandboxes', done.sandbox_id, 'control', 'agent.log'), 'utf8');
    t.notMatch(log, /upstream/);
  },
);
