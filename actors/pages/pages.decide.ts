/**
 * The pure half of the knowledge base's writer: a change as asked becomes the record the log decides.
 * Fresh ids (a page, a comment) and the instant are given, so the result is a function of its inputs.
 */
import type { PageRecord, PageWrite } from '../../schema/index.js';

export interface Minted {
  /** A fresh id for what a create or a comment brings into being. */
  readonly id: string;
  readonly at: string;
}

/** The record for `write`, or a refusal the org chart decides (an undeclared container). */
export function recordFor(
  write: PageWrite,
  minted: Minted,
  containers: readonly string[],
): { record: PageRecord } | { refuse: 'no_container'; detail: string } {
  const base = { op_id: write.op_id, at: minted.at, by: write.by };
  const change = write.change;
  switch (change.type) {
    case 'create':
      if (!containers.includes(change.container))
        return {
          refuse: 'no_container',
          detail: `no container ${change.container}: the org chart declares ${containers.join(', ') || 'none'}`,
        };
      return {
        record: {
          ...base,
          type: 'page.create',
          page_id: minted.id,
          container: change.container,
          title: change.title,
          body: change.body,
          parent_id: change.parent_id,
        },
      };
    case 'update': {
      const { type: _type, ...fields } = change;
      return { record: { ...base, ...fields, type: 'page.update' } };
    }
    case 'delete': {
      const { type: _type, ...fields } = change;
      return { record: { ...base, ...fields, type: 'page.delete' } };
    }
    case 'comment':
      return {
        record: {
          ...base,
          type: 'page.comment',
          page_id: change.page_id,
          comment_id: minted.id,
          body: change.body,
          ...(change.base_version === undefined ? {} : { base_version: change.base_version }),
        },
      };
  }
}

/** The subject token of a record kind (`svc.pages.<kind>`). */
export const recordKind = (record: PageRecord): string => record.type.replace('page.', '');
