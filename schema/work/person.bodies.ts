/**
 * The bodies of a person's own writes (ops/work-tracker.md "Inbox state and views"). `handle` names
 * whose state changes (the caller's own when absent; another person's only to an operator) and `op_id`
 * may also come as `?op_id=`. Inbox rows are named by their `id`, the row's log position.
 */
import { z } from 'zod';
import { lineText } from './item.js';
import { ViewFilter } from './person.js';

const common = { handle: z.string().min(1).max(64).optional(), op_id: z.string().optional() };
const rowIds = z.array(z.string().min(1).max(64)).max(200);
// A name and a filter's words are one line (item.ts `lineText`), as a title; records keep what they hold.
const name = lineText().trim().min(1).max(80);
const filter = ViewFilter.extend({
  type: lineText().min(1).max(64).nullable().default(null),
  label: lineText().min(1).max(64).nullable().default(null),
  q: lineText().min(1).max(200).nullable().default(null),
});
const layout = z.enum(['list', 'board']);

/** `POST /work/inbox/read`: rows by id, every row at or before `all_before`, or both. */
export const InboxReadBody = z
  .object({ ids: rowIds.optional(), all_before: z.string().min(1).max(64).optional(), ...common })
  .strict()
  .refine((b) => (b.ids?.length ?? 0) > 0 || b.all_before !== undefined, {
    message: 'name rows in ids or a position in all_before',
    path: ['ids'],
  });

/** `POST /work/inbox/snooze`. */
export const InboxSnoozeBody = z.object({ ids: rowIds.min(1), until: z.string(), ...common }).strict();

/** `POST /work/inbox/unsnooze`. */
export const InboxUnsnoozeBody = z.object({ ids: rowIds.min(1), ...common }).strict();

/** `PUT /work/people/{handle}/priorities`: the whole ordered list (empty clears it). */
export const PrioritiesBody = z
  .object({ items: z.array(z.string().min(1).max(80)).max(50), op_id: z.string().optional() })
  .strict();

/** `POST /work/views/saved`. */
export const SaveViewBody = z
  .object({
    name,
    layout: layout.default('list'),
    filter: filter.default(filter.parse({})),
    ...common,
  })
  .strict();

/** `PATCH /work/views/saved/{id}`. */
export const UpdateViewBody = z
  .object({ name: name.optional(), layout: layout.optional(), filter: filter.optional(), ...common })
  .strict();

/** `POST /work/views/pinned`. */
export const PinViewBody = z.object({ view: z.string().min(1).max(80), ...common }).strict();
