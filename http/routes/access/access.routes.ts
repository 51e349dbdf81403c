/**
 * Who may do what (spec read routes `/access`, `/viewer`, `/credential-pool`). `/access` and
 * `/credential-pool` always need a token (the guard knows both paths); `/viewer` is a read like any
 * other, so without a token it answers the anonymous state. None of them carries a credential value:
 * tokens appear by id, keys by reference.
 */
import {
  CredentialPoolSnapshot,
  peopleOf,
  personFor,
  type Person,
  type Resolver,
} from '../../../schema/index.js';
import type { Actor, ApiReply, ApiRequest, AuthSettings, RouteDef } from '../../types.js';

export interface AccessRouteDeps {
  readonly auth: AuthSettings;
  /** The active company document, opened and not redacted; null before the first revision. */
  readonly activeDocument: () => unknown;
  /** Resolves `${VAR}` in `contact.operator_id` (store, then environment). */
  readonly resolve: Resolver;
  /** The live credential pool, or one computed from the active document. */
  readonly credentialPool: () => CredentialPoolSnapshot;
  /** Write tools `/operator/act` serves to a bound operator; empty where that route is absent. */
  readonly operatorActs?: () => readonly string[];
}

const seatOf = (p: Person) => ({ handle: p.handle, name: p.name, unit: p.unit });

function people(deps: AccessRouteDeps): Person[] {
  return peopleOf(
    deps.activeDocument(),
    deps.auth.tokens.map((t) => t.id),
    deps.resolve,
  );
}

const isWriter = (auth: AuthSettings, actor: Actor | null): boolean =>
  auth.companyWriters === undefined
    ? actor !== null
    : actor?.kind === 'operator' && auth.companyWriters.includes(actor.id);

function access(deps: AccessRouteDeps): ApiReply {
  const { auth } = deps;
  const humans = people(deps);
  return {
    status: 200,
    body: {
      auth: {
        guard: auth.disabled ? 'disabled' : 'on',
        allow_anonymous_read: auth.allowAnonymousRead,
        tokens: auth.tokens.length,
        managed: auth.companyWriters !== undefined,
      },
      tokens: auth.tokens.map((token) => {
        const person = personFor(humans, token.id);
        return {
          id: token.id,
          acts_as: person ? seatOf(person) : null,
          company_writer: auth.companyWriters === undefined || auth.companyWriters.includes(token.id),
        };
      }),
      company_writers: auth.companyWriters ?? null,
      people: humans.map((p) => ({
        ...seatOf(p),
        email: p.email,
        availability: p.availability,
        contact: p.contact,
        operator_id: p.operator_id,
        binding: p.binding,
      })),
    },
  };
}

function viewer(deps: AccessRouteDeps, req: ApiRequest): ApiReply {
  const actor = req.actor;
  const operator = actor?.kind === 'operator';
  const person = operator ? personFor(people(deps), actor.id) : null;
  return {
    status: 200,
    body: {
      operator_id: operator ? actor.id : null,
      operator,
      seat: person ? seatOf(person) : null,
      acts: person ? [...(deps.operatorActs?.() ?? [])] : [],
      config_writer: isWriter(deps.auth, actor),
      config_managed_by: deps.auth.companyWriters ?? null,
    },
  };
}

function credentialPool(deps: AccessRouteDeps): ApiReply {
  // Parsed on the way out: only the contract's fields leave, whatever the pool carries inside.
  return { status: 200, body: { providers: CredentialPoolSnapshot.parse(deps.credentialPool()) } };
}

export function accessRoutes(deps: AccessRouteDeps): RouteDef[] {
  // None reads a query parameter: any is 400 `bad_params` (`/viewer?seat=` does not view as another seat).
  return [
    { method: 'GET', pattern: '/access', access: 'guarded', query: [], handler: () => access(deps) },
    { method: 'GET', pattern: '/viewer', query: [], handler: (req) => viewer(deps, req) },
    {
      method: 'GET',
      pattern: '/credential-pool',
      access: 'guarded',
      query: [],
      handler: () => credentialPool(deps),
    },
  ];
}
