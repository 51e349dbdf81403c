/**
 * The one command of the knowledge base (`pages.write`, served by `actors/pages`): a change as the
 * writer asks for it. The actor turns it into a record on SVC_PAGES and answers what the log decided.
 */
import { z } from 'zod';
import { ServiceCaller } from '../service-tools.js';
import { OpId } from '../work/item.js';
import { ContainerKey, PageBody, PageCommentBody, PageOutcome, PageTitle } from './pages.records.js';

export const PageChange = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('create'),
    container: ContainerKey,
    title: PageTitle,
    body: PageBody.default(''),
    parent_id: z.string().min(1).nullable().default(null),
  }),
  z.object({
    type: z.literal('update'),
    page_id: z.string().min(1),
    title: PageTitle.optional(),
    body: PageBody.optional(),
    parent_id: z.string().min(1).nullable().optional(),
    base_version: z.number().int().positive().optional(),
  }),
  z.object({
    type: z.literal('delete'),
    page_id: z.string().min(1),
    base_version: z.number().int().positive().optional(),
  }),
  z.object({
    type: z.literal('comment'),
    page_id: z.string().min(1),
    body: PageCommentBody,
    base_version: z.number().int().positive().optional(),
  }),
]);
export type PageChange = z.infer<typeof PageChange>;
export type PageChangeInput = z.input<typeof PageChange>;

export const PageWrite = z.object({ op_id: OpId, by: ServiceCaller, change: PageChange });
export type PageWrite = z.infer<typeof PageWrite>;

/** `repeated`: the op_id was already decided; the outcome is the first one, nothing was written again. */
export const PageWriteReply = z.object({ outcome: PageOutcome, repeated: z.boolean() });
export type PageWriteReply = z.infer<typeof PageWriteReply>;
