/** One comment of an item's thread. */
import { z } from 'zod';

export const Comment = z.object({
  id: z.string(),
  author: z.string(),
  body: z.string(),
  at: z.string(),
});
export type Comment = z.infer<typeof Comment>;
