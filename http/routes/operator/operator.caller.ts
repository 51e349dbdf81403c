/**
 * Who an `/operator/*` request acts as (spec "Authentication" 7): the human seat whose
 * `contact.operator_id` is the token's id. A token bound to nobody is refused 403 `unbound_token`; with
 * the guard disabled the caller is anonymous and refused 403 `guard_disabled` (ops/operator.md).
 */
import type { ServiceCaller, ServiceTool } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { Actor } from '../../types.js';

export interface OperatorDeps {
  /** The tool catalogue (knowledge base, work tracker) as it stands now. */
  readonly tools: () => readonly ServiceTool[];
  /** The person a token acts as, or null when no human seat is bound to it. */
  readonly person: (actor: Actor | null) => ServiceCaller | null;
}

export function operatorPerson(deps: OperatorDeps, actor: Actor | null): ServiceCaller {
  if (actor?.kind === 'anonymous')
    throw new ApiError('guard_disabled', {
      detail:
        'The guard is disabled (`api.auth.disabled`), so this caller is anonymous and acts as no person.',
    });
  const person = deps.person(actor);
  if (!person)
    throw new ApiError('unbound_token', {
      detail: `Token ${actor?.id ?? '(none)'} is bound to no single human seat (no seat's contact.operator_id names it, or several do), so there is no one to act as.`,
      hint: '`GET /access` shows each seat binding: `unknown_token`, `conflict`, or none.',
    });
  return person;
}

/** The write tools `/operator/act/{tool}` serves (what `/viewer` reports as `acts`). */
export const actTools = (deps: OperatorDeps): ServiceTool[] => deps.tools().filter((t) => t.write);
