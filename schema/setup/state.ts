/**
 * The state of one integration as `GET /setup/integrations` shows it: computed from the opened
 * document and the answers of `${VAR}` look-ups, never exposing a credential. A secret's `value` is
 * only its `${VAR}` reference; `resolved` says where a value comes from, not what it is.
 */
import { isWholeRef } from '../company/fields.js';
import { isSecretPath, namesSecret, stringLeaves } from '../company/secret-paths.js';
import { listRefs } from '../env-refs.js';
import { isRecord } from '../document/index.js';
import { seatSegments, segmentsOf, valueAt } from './doc-paths.js';
import type { AppRosterEntry } from './app-roster.js';
import type { KindSpec, Requirement } from './requirement.js';

/** Where a `${NAME}` was answered. */
export type LookupSource = 'store' | 'environment';
export interface LookupAnswer {
  readonly source: LookupSource;
  readonly value: string;
}
/** Answers gathered before the (pure) state is computed. */
export type Lookups = ReadonlyMap<string, LookupAnswer | null>;

export type Resolution = 'document' | LookupSource;

/** A `${NAME}` the secret store holds sealed under a key this node's keyring lacks (`/secrets` shows its `key_id`). */
interface Unreadable {
  readonly name: string;
  readonly key_id: string;
}

export interface RequirementState extends Requirement {
  readonly value: unknown;
  readonly present: boolean;
  readonly resolved: Resolution | null;
  readonly resolved_value?: string | null;
  readonly seats?: ReadonlyArray<{
    handle: string;
    present: boolean;
    value: string | null;
    unreadable?: readonly Unreadable[];
  }>;
  /** Present only when not empty: the names it references that are stored but do not open on this node. */
  readonly unreadable?: readonly Unreadable[];
}

export interface IntegrationState {
  readonly key: string;
  readonly configured: boolean;
  readonly enabled: boolean;
  readonly satisfied: boolean;
  readonly inbound_path: string;
  readonly public_url: string | null;
  readonly requirements: RequirementState[];
  /** codehost-a only: every agent seat's app setup (`tier`, `step`, `action_url`); see app-roster.ts. */
  readonly roster?: AppRosterEntry[];
}

export interface StateInput {
  /** The opened active document; null before the first revision. */
  readonly document: unknown;
  readonly lookups: Lookups;
  /** The resolved public base URL (no trailing slash), or null. */
  readonly publicBase: string | null;
  /** Handles of agent seats (per-seat credentials are listed for them). */
  readonly agentSeats: readonly string[];
  /** True when a text holds a credential (an API token's value): such a substitution is never shown. */
  readonly credential?: (text: string) => boolean;
  /** Names the store holds sealed under a key this node lacks, with that key's id. */
  readonly unreadable?: ReadonlyMap<string, string>;
}

/** Every `${NAME}` a state computation may look up: references in the document and declared secret names. */
export function namesToLookUp(spec: KindSpec, document: unknown, agentSeats: readonly string[]): string[] {
  const names = new Set<string>();
  for (const r of spec.requirements) {
    if (r.config_path === null && r.secret_name !== null) names.add(r.secret_name);
    const values = r.per_seat
      ? agentSeats.map((h) => seatValue(document, h, r))
      : [r.config_path === null ? undefined : valueAt(document, segmentsOf(r.config_path))];
    for (const v of values) if (typeof v === 'string') for (const n of listRefs(v)) names.add(n);
  }
  return [...names];
}

function seatValue(document: unknown, handle: string, r: Requirement): unknown {
  const at = seatSegments(document, handle);
  return at === null || r.config_path === null
    ? undefined
    : valueAt(document, [...at, ...segmentsOf(r.config_path)]);
}

/**
 * A credential as the receivers use it (`http/webhooks/settings.ts`): without outer whitespace, which no
 * vendor signs with, so a value of only whitespace, or too short once trimmed, does not resolve.
 */
const usable = (value: string, minLength = 0): boolean => {
  const trimmed = value.trim();
  return trimmed !== '' && trimmed.length >= minLength;
};

const nonEmpty = (v: unknown): boolean =>
  v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);

/** Substitutes references; the first answering look-up names the source. */
function resolveText(text: string, lookups: Lookups): { value: string; source: Resolution } {
  let source: Resolution = 'document';
  const value = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_w, name: string) => {
    const answer = lookups.get(name) ?? null;
    if (answer !== null && source === 'document') source = answer.source;
    return answer?.value ?? '';
  });
  return { value, source };
}

/** The names `text` references that the store holds but this node cannot open. */
function unreadableIn(text: unknown, input: StateInput): Unreadable[] {
  if (typeof text !== 'string' || input.unreadable === undefined) return [];
  return listRefs(text).flatMap((name) => {
    const key_id = input.unreadable?.get(name);
    return key_id === undefined ? [] : [{ name, key_id }];
  });
}

/** `{unreadable}` when the list is not empty, so an answer carries the field only where it applies. */
const marked = (list: readonly Unreadable[]): { unreadable?: readonly Unreadable[] } =>
  list.length > 0 ? { unreadable: list } : {};

function requirementState(r: Requirement, input: StateInput, blockUrl: string | null): RequirementState {
  const vendor_url =
    r.vendor_url === null ? null : blockUrl === null ? null : r.vendor_url.replace('{url}', blockUrl);
  const base = { ...r, vendor_url };
  if (r.per_seat) {
    let resolved: Resolution | null = null;
    const all: Unreadable[] = [];
    const seats = input.agentSeats.map((handle) => {
      const v = seatValue(input.document, handle, r);
      const ref = typeof v === 'string' && isWholeRef(v) ? v : null;
      const answer = typeof v === 'string' ? resolveText(v, input.lookups) : null;
      const present = answer !== null && usable(answer.value);
      // Where the first seat's value comes from, as for a single credential (a sealed one: `store`).
      if (present) resolved ??= answer.source;
      const unreadable = unreadableIn(v, input);
      all.push(...unreadable);
      return { handle, present, value: ref, ...marked(unreadable) };
    });
    return { ...base, value: null, present: resolved !== null, resolved, seats, ...marked(all) };
  }
  if (r.config_path === null) {
    // Lives in the secret store (or the environment) only.
    const answer = r.secret_name === null ? null : (input.lookups.get(r.secret_name) ?? null);
    const ok = answer !== null && usable(answer.value, r.min_length);
    const ref = r.secret_name === null ? null : `\${${r.secret_name}}`;
    // Stored but not openable here: there all the same (not "not set"), and the answer says why it fails.
    const unreadable = unreadableIn(ref, input);
    return {
      ...base,
      value: ref,
      present: (answer !== null && answer.value !== '') || unreadable.length > 0,
      resolved: ok ? answer.source : null,
      ...marked(unreadable),
    };
  }
  const raw = valueAt(input.document, segmentsOf(r.config_path));
  if (r.kind === 'toggle') {
    // A toggle on a whole block (the chat marker) reads as whether the block exists.
    // `auto` (codehost-b's group_webhook) switches the same thing on as `true`.
    const value = r.config_path.split('.').length === 2 ? raw !== undefined : raw === 'auto' ? true : raw;
    const present = typeof value === 'boolean' && (raw !== undefined || value);
    return {
      ...base,
      value: typeof value === 'boolean' ? value : null,
      present,
      resolved: present ? 'document' : null,
    };
  }
  if (r.kind === 'secret') {
    const ref = typeof raw === 'string' && isWholeRef(raw) ? raw : null;
    if (typeof raw !== 'string' || raw === '') return { ...base, value: ref, present: false, resolved: null };
    const { value, source } = resolveText(raw, input.lookups);
    return {
      ...base,
      value: ref,
      present: true,
      resolved: usable(value) ? source : null,
      ...marked(unreadableIn(raw, input)),
    };
  }
  if (!nonEmpty(raw)) return { ...base, value: raw ?? null, present: false, resolved: null };
  if (typeof raw === 'string' && listRefs(raw).length > 0) {
    const { value, source } = resolveText(raw, input.lookups);
    return {
      ...base,
      value: raw,
      present: true,
      resolved: value === '' ? null : source,
      resolved_value: shown(raw, value, input),
      ...marked(unreadableIn(raw, input)),
    };
  }
  return { ...base, value: raw, present: true, resolved: 'document' };
}

/** The block's base URL with references resolved (for `vendor_url` templates). */
function blockUrl(spec: KindSpec, input: StateInput): string | null {
  const url = spec.requirements.find((r) => r.field === 'url' && r.config_path !== null);
  const raw = url?.config_path ? valueAt(input.document, segmentsOf(url.config_path)) : undefined;
  if (typeof raw !== 'string' || raw === '') return null;
  return shown(raw, resolveText(raw, input.lookups).value.replace(/\/+$/, ''), input);
}

/**
 * A substitution as a read may show it: null when empty, and when it holds a stored secret, a variable
 * the document uses at a credential leaf or whose name says credential (`*_TOKEN`, `*_KEY`, ...), or a
 * token's value an environment variable holds — a reference field is not a way to read credentials.
 */
function shown(raw: string, value: string, input: StateInput): string | null {
  if (value === '') return null;
  if (listRefs(raw).some((name) => withheldReference(name, input))) return null;
  return input.credential?.(value) === true ? null : value;
}

/**
 * Whether what `${name}` resolves to is withheld from every setup answer (resolved values, vendor links,
 * a pass's run): a stored secret, a variable the document uses at a credential leaf, or one whose name
 * says credential.
 */
export function withheldReference(name: string, input: Pick<StateInput, 'document' | 'lookups'>): boolean {
  return (
    input.lookups.get(name)?.source === 'store' ||
    namesSecret(name) ||
    credentialNames(input.document).has(name)
  );
}

/** The `${NAME}`s the document writes at its secret leaves (write rule 7), remembered per document. */
const credentialNamesOf = new WeakMap<object, ReadonlySet<string>>();
function credentialNames(document: unknown): ReadonlySet<string> {
  if (typeof document !== 'object' || document === null) return new Set();
  let names = credentialNamesOf.get(document);
  if (names === undefined) {
    const found = new Set<string>();
    for (const [at, text] of stringLeaves(document))
      if (isSecretPath(at)) for (const name of listRefs(text)) found.add(name);
    names = found;
    credentialNamesOf.set(document, names);
  }
  return names;
}

export function integrationState(spec: KindSpec, input: StateInput): IntegrationState {
  const url = blockUrl(spec, input);
  const requirements = spec.requirements.map((r) => requirementState(r, input, url));
  let configured: boolean;
  let enabled: boolean;
  if (spec.block_path === null) {
    configured = requirements.some((r) => r.present);
    enabled = configured;
  } else {
    const block = valueAt(input.document, segmentsOf(spec.block_path));
    configured = block !== undefined && block !== null && block !== '';
    enabled = configured && !(isRecord(block) && block['enabled'] === false);
  }
  const byField = new Map(requirements.map((r) => [r.field, r]));
  const satisfied =
    enabled &&
    requirements.every((r) => !r.required || r.resolved !== null) &&
    (spec.one_of ?? []).every((group) => group.some((f) => byField.get(f)?.resolved != null));
  return {
    key: spec.key,
    configured,
    enabled,
    satisfied,
    inbound_path: spec.inbound_path,
    public_url: input.publicBase === null ? null : `${input.publicBase}${spec.inbound_path}`,
    requirements,
  };
}

/** A reconcile finding: a requirement name (`blocks`) an enabled integration leaves unmet. */
export interface SetupFinding {
  /** The `blocks` name: `<block>.<finding>`, e.g. `tracker_b.webhook_unsigned`. */
  readonly finding: string;
  /** The integration kind (`tracker-b`). */
  readonly integration: string;
  /** The labels of the requirements that keep it raised. */
  readonly missing: readonly string[];
  /**
   * Present only when not empty: the `${NAME}`s of those requirements that the store holds sealed under a
   * key this node lacks (by requirement label), so the alarm names the key rather than an unset value.
   */
  readonly unreadable?: ReadonlyArray<{ readonly label: string } & Unreadable>;
}

/**
 * The findings an integration's state raises: for an enabled integration, each required requirement with
 * no resolved value, and each `one_of` group none of whose fields resolves, under its `blocks` name.
 * A block switched off, or never configured, raises none.
 */
export function setupFindings(spec: KindSpec, state: IntegrationState): SetupFinding[] {
  if (!state.enabled) return [];
  const byFinding = new Map<string, string[]>();
  const sealed = new Map<string, Map<string, { label: string } & Unreadable>>();
  const add = (r: RequirementState): void => {
    byFinding.set(r.blocks, [...new Set([...(byFinding.get(r.blocks) ?? []), r.label])]);
    const held = sealed.get(r.blocks) ?? new Map<string, { label: string } & Unreadable>();
    for (const u of r.unreadable ?? []) held.set(`${r.label}\u0000${u.name}`, { label: r.label, ...u });
    sealed.set(r.blocks, held);
  };
  for (const r of state.requirements) if (r.required && r.resolved === null) add(r);
  const byField = new Map(state.requirements.map((r) => [r.field, r]));
  for (const group of spec.one_of ?? []) {
    const members = group.map((f) => byField.get(f)).filter((r): r is RequirementState => r !== undefined);
    if (!members.some((r) => r.resolved !== null)) members.forEach(add);
  }
  return [...byFinding].map(([finding, missing]) => {
    const unreadable = [...(sealed.get(finding)?.values() ?? [])];
    return { finding, integration: spec.key, missing, ...(unreadable.length > 0 ? { unreadable } : {}) };
  });
}
