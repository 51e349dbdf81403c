/**
 * `org_lookup` (a colleague by handle, name or role, public fields only), `ask_human`, which
 * records that the seat needs an answer from a human colleague and publishes `human_asked`, and
 * `withdraw_question`, which closes such a question the seat no longer needs answered. The
 * engine never sends messages as itself (spec rule 3): the agent reaches the person with its own
 * colleague-surface tools, and the reply wakes it through the normal inbound path.
 */
import { newEvent } from '../../../bus/index.js';
import { z } from 'zod';
import { EventCategory } from '../../../schema/index.js';
import { defineBuiltin, textResult } from './builtin.define.js';
import {
  builtinCallId,
  type BuiltinTool,
  type EventSink,
  type NeedsRecorder,
  type OrgDirectory,
} from './builtin.types.js';
import { findColleagues } from './org-directory.js';

const maxMatches = 10;

const LookupArgs = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe(
      'A handle (`ada` or `@ada`), a name or role name, a unit, or words from a goal or responsibility.',
    ),
});

const AskArgs = z.strictObject({
  to: z.string().trim().min(1).max(200).describe('Handle or name of the human colleague.'),
  question: z.string().trim().min(1).max(4_000).describe('What you need from them, answerable on its own.'),
  context: z
    .string()
    .trim()
    .max(4_000)
    .optional()
    .describe('Why you need it and what you will do with the answer.'),
  urgency: z.enum(['low', 'normal', 'high']).default('normal'),
});

const WithdrawArgs = z.strictObject({
  id: z.string().trim().min(1).max(200).describe('The question id ask_human answered with.'),
});

export function orgTools(deps: {
  readonly org: OrgDirectory;
  readonly needs: NeedsRecorder;
  readonly events: EventSink;
  readonly now?: () => Date;
}): BuiltinTool[] {
  const now = deps.now ?? (() => new Date());
  const lookup = defineBuiltin({
    name: 'org_lookup',
    description:
      'Look up colleagues (agents and humans) by handle, name, role or unit: their unit, what they lead, goal and responsibilities.',
    annotations: {
      title: 'Look up a colleague',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    delivers: null,
    args: LookupArgs,
    run(_ctx, args) {
      const found = findColleagues(deps.org.colleagues(), args.query);
      if (found.length === 0) return Promise.resolve(textResult(`No colleague matches "${args.query}".`));
      const shown = found.slice(0, maxMatches);
      const more =
        found.length > shown.length ? `\n(${found.length - shown.length} more; narrow the query)` : '';
      return Promise.resolve(textResult(JSON.stringify(shown, null, 2) + more));
    },
  });

  const ask = defineBuiltin({
    name: 'ask_human',
    description:
      'Record that you need an answer from a human colleague before you can go on. This sends nothing: ' +
      'reach them yourself with your own tools (a chat mention, an issue comment); their reply wakes you.',
    annotations: {
      title: 'Ask a human colleague',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    delivers: 'needs',
    args: AskArgs,
    async run(ctx, args) {
      const found = findColleagues(deps.org.colleagues(), args.to);
      const humans = found.filter((c) => c.kind === 'human');
      if (humans.length === 0) {
        const agent = found.find((c) => c.kind === 'agent');
        return textResult(
          agent
            ? `${agent.name} (${agent.handle}) is an agent, not a human colleague; ask_human records questions for humans only.`
            : `No human colleague matches "${args.to}"; use org_lookup to find one.`,
          true,
        );
      }
      if (humans.length > 1) {
        const names = humans.map((h) => `${h.name} (${h.handle})`).join(', ');
        return textResult(`"${args.to}" names several people: ${names}. Ask again with one handle.`, true);
      }
      const person = humans[0]!;
      const at = now();
      const need = {
        // Derived from the call: a call retried after a cut records the same need and event, once.
        id: builtinCallId(ctx, 'ask_human'),
        to: person.handle,
        question: args.question,
        context: args.context ?? null,
        urgency: args.urgency,
        asked_at: at.toISOString(),
        turn_id: ctx.turn_id ?? null,
      };
      const recorded = await deps.needs.recordNeed(ctx.seat, need);
      if (!recorded.recorded) {
        // Refused rather than dropping the oldest open question, which nobody would have been told of.
        return textResult(
          `Not recorded: this seat already waits on ${recorded.open} open questions, as many as it may. ` +
            'Withdraw one you no longer need answered (withdraw_question with its id), or wait for an ' +
            'answer, then ask again.',
          true,
        );
      }
      await deps.events.publish({
        ...newEvent({
          type: 'human_asked',
          category: EventCategory.A2a,
          source: `seat/${ctx.seat}`,
          actor: ctx.seat,
          agent_id: ctx.seat,
          summary: `${ctx.seat} needs an answer from ${person.handle}`,
          payload: {
            need_id: need.id,
            to: person.handle,
            question: need.question,
            context: need.context,
            urgency: need.urgency,
            turn_id: need.turn_id,
          },
          now: at,
          ...(ctx.trace ? { trace: ctx.trace } : {}),
        }),
        id: builtinCallId(ctx, 'human_asked'),
      });
      return textResult(
        `Recorded that you need an answer from ${person.name} (${person.handle}); nothing was sent ` +
          `(question id ${need.id}). Reach them with your own tools (a chat mention, an issue comment); ` +
          'their reply will wake you. If you no longer need the answer, withdraw_question with that id.',
      );
    },
  });

  const withdraw = defineBuiltin({
    name: 'withdraw_question',
    description:
      'Withdraw a question you recorded with ask_human (by the id it answered) once you no longer need the ' +
      'answer: you stop waiting on that colleague. This sends nothing.',
    annotations: {
      title: 'Withdraw a question',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    delivers: 'needs',
    args: WithdrawArgs,
    async run(ctx, args) {
      const withdrawn = await deps.needs.withdrawNeed(
        ctx.seat,
        args.id,
        builtinCallId(ctx, 'withdraw_question'),
        ctx.turn_id ?? null,
      );
      return withdrawn
        ? textResult(`Withdrew question ${args.id}; you no longer wait on its answer.`)
        : textResult(
            `No open question has the id ${args.id} (answered, withdrawn or cleared already).`,
            true,
          );
    },
  });
  return [lookup, ask, withdraw];
}
