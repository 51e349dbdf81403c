/**
 * `run_sandbox` hands a coding task to a detached run of the seat's coding agent and waits — the execute
 * phase is suspended in this call — until the run asks a question or ends. A question ends the wait: the
 * seat is woken with it and a later turn answers with `answer_sandbox`, which resumes the run and waits
 * again the same way; `cancel_sandbox` stops one of the seat's runs. All three are offered only to seats
 * whose `sandbox` is set. The run's id derives from
 * the call, so a call retried after a cut finds its run instead of launching another.
 */
import { z } from 'zod';
import type { SandboxRunRecord } from '../../../schema/index.js';
import type { SandboxDesk } from '../../sandbox/index.js';
import { defineBuiltin, textResult } from './builtin.define.js';
import { builtinCallId, type BuiltinTool, type ToolContext } from './builtin.types.js';

const RunArgs = z.strictObject({
  task: z.string().trim().min(1).max(20_000).describe('The coding task, complete enough to work on alone.'),
  work_item: z.string().trim().min(1).max(200).optional().describe('The work item the task belongs to.'),
});
const CancelArgs = z.strictObject({
  sandbox_id: z.string().trim().min(1).max(200).describe('Your coding run to stop.'),
  reason: z.string().trim().max(500).optional().describe('Why, for whoever reads the run later.'),
});
const AnswerArgs = z.strictObject({
  sandbox_id: z.string().trim().min(1).max(200).describe('The run that asked (from its question).'),
  answer: z.string().trim().min(1).max(8_000).describe('Your answer to its question.'),
});

/** What the model reads once the wait ends. */
function outcome(run: SandboxRunRecord | null, ctx: ToolContext) {
  if (run === null) return textResult('the coding run is not known', true);
  const id = run.sandbox_id;
  switch (run.status) {
    case 'awaiting_clarification':
      return textResult(
        `Coding run ${id} asks${run.audience ? ` (for ${run.audience})` : ''}: ${run.question ?? ''}\n` +
          `It waits for an answer: give it with answer_sandbox (sandbox_id "${id}"), now or in a later turn.`,
      );
    case 'done':
      return textResult(`Coding run ${id} is done.\n${run.summary ?? ''}`);
    case 'failed':
      return textResult(`Coding run ${id} failed: ${run.error ?? 'no reason given'}`, true);
    case 'cancelled':
      // Stopped from outside (an operator): not the agent's failure, and nothing more will come of it.
      return textResult(
        `Coding run ${id} was ${run.error ?? 'cancelled'}. Its processes were stopped; its working directory is left as it was.`,
        true,
      );
    default:
      // The turn was cut while waiting: the run goes on; its question or end wakes the seat.
      return textResult(
        `Coding run ${id} is ${run.status}${ctx.signal?.aborted ? ' (the turn stopped waiting)' : ''}.`,
      );
  }
}

export function sandboxTools(deps: { readonly desk: SandboxDesk }): BuiltinTool[] {
  const offered = (seat: string): boolean => deps.desk.settingsFor(seat) !== null;
  const run = defineBuiltin({
    name: 'run_sandbox',
    description:
      'Hand a coding task to a detached run of your coding agent in a fresh sandbox. Waits until the run ' +
      'finishes or asks a question; a question is answered with answer_sandbox.',
    annotations: {
      title: 'Run a coding task in a sandbox',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    delivers: null,
    args: RunArgs,
    offered,
    async run(ctx, args) {
      const sandbox = deps.desk.settingsFor(ctx.seat);
      if (sandbox === null) return textResult(`${ctx.seat} has no sandbox configured`, true);
      const launched = await deps.desk.launch({
        sandbox_id: builtinCallId(ctx, 'run_sandbox'),
        seat: ctx.seat,
        role: sandbox.role,
        agent_id: ctx.agent_id,
        turn_id: ctx.turn_id ?? '',
        trace_id: ctx.trace?.trace_id ?? '',
        parent_span_id: ctx.trace?.parent_span_id ?? null,
        task: args.task,
        work_item: args.work_item ?? null,
        coding_agent: sandbox.coding_agent,
        settings: sandbox.settings,
      });
      return outcome(await deps.desk.settle(launched.sandbox_id, ctx.signal), ctx);
    },
  });
  const answer = defineBuiltin({
    name: 'answer_sandbox',
    description:
      'Answer the question a coding run of yours asked; it resumes, and this waits as run_sandbox does.',
    annotations: {
      title: 'Answer a coding run',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    delivers: null,
    args: AnswerArgs,
    offered,
    async run(ctx, args) {
      const known = deps.desk.get(args.sandbox_id);
      // A call retried after a cut whose answer went through: resumed with this answer already.
      const repeated = known?.status === 'resumed' && known.answer === args.answer;
      const reply = repeated
        ? ({ ok: true, status: known.status } as const)
        : await deps.desk.answer(args.sandbox_id, ctx.seat, args.answer);
      if (!reply.ok) return textResult(`${reply.error}: ${reply.message}`, true);
      return outcome(await deps.desk.settle(args.sandbox_id, ctx.signal), ctx);
    },
  });
  const cancel = defineBuiltin({
    name: 'cancel_sandbox',
    description:
      'Stop a coding run of yours that is still going (a wrong task, or its question no longer matters); its processes are stopped and it ends cancelled.',
    annotations: {
      title: 'Cancel a coding run',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    },
    delivers: null,
    args: CancelArgs,
    offered,
    async run(ctx, args) {
      const known = deps.desk.get(args.sandbox_id);
      if (!known || known.agent_handle !== ctx.seat)
        return textResult(`unknown_run: you have no coding run ${args.sandbox_id}`, true);
      const reply = await deps.desk.cancel(args.sandbox_id, ctx.seat, args.reason ?? '');
      if (!reply.ok) return textResult(`${reply.error}: ${reply.message}`, true);
      return textResult(`Coding run ${args.sandbox_id} is cancelled; its processes were stopped.`);
    },
  });
  return [run, answer, cancel];
}
