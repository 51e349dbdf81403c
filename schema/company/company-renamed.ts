/**
 * A write that changes the company's `name`: every seat's durable agent id is a UUIDv5 over the company name
 * and its handle (spec "Seats"), so each seat gets a new id and its notes, episodes, counterparty profiles and
 * learned skills stay behind under the old one. Not a refusal (a rename may be meant); a warning of kind
 * `company_renamed` at `name` says so, naming the old and the new name.
 */
import { cutForQuote } from '../text-grammars.js';
import { isRecord } from './walk.js';

export interface CompanyRename {
  readonly from: string;
  readonly to: string;
  readonly message: string;
}

/**
 * The rename `input` makes of the active document, or null when the name is kept (or either has none).
 * Compared as written: the id hashes the name exactly, so even a changed space renames.
 */
export function companyRenamed(input: Record<string, unknown>, active: unknown): CompanyRename | null {
  const before = isRecord(active) ? active['name'] : undefined;
  const after = input['name'];
  if (typeof before !== 'string' || typeof after !== 'string' || before === after) return null;
  const from = cutForQuote(before);
  const to = cutForQuote(after);
  return {
    from,
    to,
    message:
      `Renaming the company from ${JSON.stringify(from)} to ${JSON.stringify(to)} gives every seat a new agent id ` +
      '(the id is derived from the company name and the handle): the personal memory, episodes, counterparty ' +
      'profiles and learned skills kept under the old ids are no longer read. Keep the name to keep them.',
  };
}
