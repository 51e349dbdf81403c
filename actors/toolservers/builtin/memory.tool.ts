/**
 * Personal memory (spec "Memory view": long rows, and short rows with `ttl_until` and `expired`):
 * `memory_remember` keeps a note for later turns, `memory_recall` reads notes back, `memory_forget` removes one.
 */
import { newEvent } from '../../../bus/index.js';
import { z } from 'zod';
import { EventCategory } from '../../../schema/index.js';
import { defineBuiltin, textResult } from './builtin.define.js';
import {
  builtinCallId,
  MemoryKind,
  type BuiltinTool,
  type EventSink,
  type PersonalMemory,
} from './builtin.types.js';
import type { LearningGate } from './learning.gate.js';

export const memoryLimits = {
  contentMaxChars: 4_000,
  defaultTtlSeconds: 86_400,
  minTtlSeconds: 60,
  maxTtlSeconds: 30 * 86_400,
  defaultRecall: 10,
  maxRecall: 50,
} as const;

const RememberArgs = z
  .strictObject({
    content: z
      .string()
      .trim()
      .min(1)
      .max(memoryLimits.contentMaxChars)
      .describe('The note, written so it makes sense in a later turn without today’s context.'),
    kind: z
      .enum([MemoryKind.Long, MemoryKind.Short])
      .default(MemoryKind.Long)
      .describe(
        '`long` is kept until you remove it with memory_forget; `short` expires after `ttl_seconds`.',
      ),
    ttl_seconds: z
      .number()
      .int()
      .min(memoryLimits.minTtlSeconds)
      .max(memoryLimits.maxTtlSeconds)
      .optional()
      .describe(`Short notes only; default ${memoryLimits.defaultTtlSeconds} (one day).`),
    metadata: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe('Small labels to recall by, e.g. {"topic": "release"}.'),
  })
  .refine((args) => args.kind === MemoryKind.Short || args.ttl_seconds === undefined, {
    message: 'ttl_seconds applies only to kind "short"',
    path: ['ttl_seconds'],
  });

const ForgetArgs = z.strictObject({
  id: z.string().trim().min(1).max(200).describe('The note’s `id`, as memory_recall shows it.'),
});

const RecallArgs = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('What to look for; leave out for the most recent notes.'),
  kind: z.enum([MemoryKind.Long, MemoryKind.Short, 'all']).default('all'),
  limit: z.number().int().min(1).max(memoryLimits.maxRecall).default(memoryLimits.defaultRecall),
  include_expired: z.boolean().default(false).describe('Also return short notes past their ttl.'),
});

export function memoryTools(deps: {
  readonly memory: PersonalMemory;
  readonly events: EventSink;
  /**
   * When it says no for a seat, `memory_remember` refuses and writes nothing (recall still reads); its
   * `recallsPerTurn` caps the `memory_recall` calls of one turn.
   */
  readonly learning?: LearningGate;
  readonly now?: () => Date;
}): BuiltinTool[] {
  const now = deps.now ?? (() => new Date());
  const remember = defineBuiltin({
    name: 'memory_remember',
    description:
      'Keep a personal note for your later turns: a long-term fact, or a short-lived reminder that expires.',
    annotations: {
      title: 'Remember',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    delivers: 'personal_memory',
    args: RememberArgs,
    async run(ctx, args) {
      if (deps.learning && !deps.learning.enabled(ctx.seat))
        return textResult(
          'Learning is off for your seat (learning_enabled or the org learning.enabled is false), so nothing was remembered.',
          true,
        );
      const at = now();
      const ttlUntil =
        args.kind === MemoryKind.Short
          ? new Date(at.getTime() + (args.ttl_seconds ?? memoryLimits.defaultTtlSeconds) * 1000).toISOString()
          : null;
      // Derived from the call: a call retried after a cut rewrites the same row and event, once.
      const id = builtinCallId(ctx, 'memory_remember');
      await deps.memory.remember(ctx.agent_id, {
        id,
        kind: args.kind,
        content: args.content,
        metadata: args.metadata ?? {},
        ttl_until: ttlUntil,
        created_at: at.toISOString(),
      });
      await deps.events.publish({
        ...newEvent({
          type: 'memory_remembered',
          category: EventCategory.Learning,
          source: `seat/${ctx.seat}`,
          actor: ctx.seat,
          agent_id: ctx.seat,
          summary: `${ctx.seat} remembered a ${args.kind === MemoryKind.Long ? 'long-term' : 'short-term'} note`,
          payload: {
            memory_id: id,
            kind: args.kind,
            ttl_until: ttlUntil,
            content_chars: args.content.length,
            turn_id: ctx.turn_id ?? null,
          },
          now: at,
          ...(ctx.trace ? { trace: ctx.trace } : {}),
        }),
        id: builtinCallId(ctx, 'memory_remembered'),
      });
      return textResult(
        ttlUntil === null ? `Remembered as ${id}.` : `Remembered as ${id} until ${ttlUntil}.`,
      );
    },
  });

  const recall = defineBuiltin({
    name: 'memory_recall',
    description:
      'Read back your personal notes, most relevant first; expired short notes are left out unless asked for.',
    annotations: {
      title: 'Recall',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    delivers: null,
    // A cap of 0 leaves a turn no recall: the tool is not offered rather than offered to be refused.
    offered: () => deps.learning?.recallsPerTurn() !== 0,
    args: RecallArgs,
    async run(ctx, args) {
      // The turn counts its calls (a resumed one its journaled calls too); a call outside a turn has no cap.
      const cap = deps.learning?.recallsPerTurn() ?? null;
      if (cap !== null && ctx.calls_before !== undefined && ctx.calls_before >= cap)
        return textResult(
          `Not recalled: the limit of ${cap} memory_recall calls per turn was reached this turn ` +
            '(learning.personal_memory.max_refreshes_per_turn); go on with what earlier recalls returned.',
          true,
        );
      const at = now();
      const rows = await deps.memory.recall(ctx.agent_id, {
        query: args.query ?? null,
        kind: args.kind === 'all' ? null : args.kind,
        limit: args.limit,
        include_expired: args.include_expired,
        now: at,
      });
      const shown = rows
        .map((row) => ({
          id: row.id,
          kind: row.kind,
          content: row.content,
          metadata: row.metadata,
          ttl_until: row.ttl_until,
          ...(row.kind === MemoryKind.Short
            ? { expired: row.ttl_until !== null && Date.parse(row.ttl_until) <= at.getTime() }
            : {}),
        }))
        // The store may not filter: the tool keeps its promise either way.
        .filter((row) => args.include_expired || row.expired !== true)
        .filter((row) => args.kind === 'all' || row.kind === args.kind)
        .slice(0, args.limit);
      if (shown.length === 0) return textResult('No notes match.');
      return textResult(JSON.stringify(shown, null, 2));
    },
  });
  const forget = defineBuiltin({
    name: 'memory_forget',
    description:
      'Remove one of your personal notes for good, by the id memory_recall shows (when it is wrong or no longer useful).',
    annotations: {
      title: 'Forget',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    delivers: 'personal_memory',
    args: ForgetArgs,
    // Not gated on learning: a seat whose learning went off can still remove what it kept.
    async run(ctx, args) {
      const outcome = await deps.memory.forget(ctx.agent_id, args.id);
      if (outcome === 'unknown')
        return textResult(
          `No note ${JSON.stringify(args.id)} among your notes, so nothing was forgotten: ` +
            'memory_recall shows the ids of yours (another seat’s notes are its own).',
          true,
        );
      // A note already removed is announced again: a call retried after a cut publishes its one event.
      await deps.events.publish({
        ...newEvent({
          type: 'memory_forgotten',
          category: EventCategory.Learning,
          source: `seat/${ctx.seat}`,
          actor: ctx.seat,
          agent_id: ctx.seat,
          summary: `${ctx.seat} forgot a note`,
          payload: { memory_id: args.id, reason: 'seat' },
          now: now(),
          ...(ctx.trace ? { trace: ctx.trace } : {}),
        }),
        id: builtinCallId(ctx, 'memory_forgotten'),
      });
      return textResult(
        outcome === 'forgotten' ? `Forgot ${args.id}.` : `${args.id} was already forgotten; nothing to do.`,
      );
    },
  });
  return [remember, recall, forget];
}
