/**
 * Planning `POST /setup/integrations/{kind}/inputs` (pure): which credentials to seal under which
 * names, and the document with the rest patched in. Every refusal is decided here, before anything
 * is sealed or stored; messages never carry a value or its length.
 */
import { hasRef, isWholeRef } from '../company/fields.js';
import { hasVendorShape, vendorIdProblem } from '../company/vendor-ids.js';
import { isSecretName, SECRET_NAME_MAX, SECRET_VALUE_MAX_BYTES } from '../secrets.js';
import type { JsonObject } from '../document/index.js';
import { segmentsOf, seatSegments, valueAt, withValue } from './doc-paths.js';
import type { KindSpec, Requirement, SetupInputs } from './requirement.js';

export interface Seal {
  readonly field: string;
  readonly name: string;
  readonly value: string;
  readonly generated: boolean;
}

export interface InputsPlan {
  readonly seals: Seal[];
  /** Fields written into the document (credentials as their `${NAME}`). */
  readonly written: string[];
  /** The patched document; null when no field lives in the document. */
  readonly document: JsonObject | null;
}

export interface InputProblem {
  readonly path: string;
  readonly segments: string[];
  readonly kind: 'missing' | 'unknown_value' | 'out_of_range' | 'conflict' | 'unknown_field' | 'shape';
  readonly message: string;
}

/** A refusal of the request: `invalid_body` for a malformed one, `validation_error` for a wrong value. */
export class InputsRefused extends Error {
  override name = 'InputsRefused';
  constructor(
    readonly code: 'invalid_body' | 'validation_error',
    readonly problems: InputProblem[],
  ) {
    super(`${code}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
  }
}

const problem = (field: string, kind: InputProblem['kind'], message: string): InputProblem => ({
  path: `values.${field}`,
  segments: ['values', field],
  kind,
  message,
});

/** The store name for a per-seat secret: `{SEAT}` becomes the handle in upper case, `-` as `_`. */
export const seatSecretName = (template: string, handle: string): string =>
  template.replace('{SEAT}', handle.toUpperCase().replace(/-/g, '_'));

/**
 * Pasted values often carry a newline or spaces no credential or setting means; a token sealed with its
 * newline never matches the header that carries it, and a length check would count the whitespace.
 */
function trimmed(inputs: SetupInputs): SetupInputs {
  const values = Object.fromEntries(
    Object.entries(inputs.values).map(([field, v]) => [field, typeof v === 'string' ? v.trim() : v]),
  );
  return { ...inputs, values };
}

const WHOLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** Checks the shape of the request against the kind's declarations (400 `invalid_body`). */
function checkShape(spec: KindSpec, inputs: SetupInputs): void {
  const fields = new Map(spec.requirements.map((r) => [r.field, r]));
  const problems: InputProblem[] = [];
  for (const [field, value] of Object.entries(inputs.values)) {
    const r = fields.get(field);
    if (!r) problems.push(problem(field, 'unknown_field', `${spec.key} has no requirement ${field}`));
    else if (r.kind === 'toggle' && typeof value !== 'boolean')
      problems.push(problem(field, 'shape', 'a toggle is a JSON boolean'));
    else if (r.kind !== 'toggle' && typeof value !== 'string')
      problems.push(problem(field, 'shape', 'expected a string'));
    else if (r.kind === 'secret' && value === '')
      problems.push(problem(field, 'shape', 'a credential cannot be empty (remove it with DELETE instead)'));
    // The reads show a credential as its reference: sent back, it would be sealed as that text over the value.
    else if (r.kind === 'secret' && typeof value === 'string' && WHOLE_REFERENCE.test(value))
      problems.push(
        problem(
          field,
          'shape',
          'a ${VAR} reference is not a credential: send the value, or write the reference with /config',
        ),
      );
  }
  for (const field of inputs.generate) {
    const r = fields.get(field);
    if (!r) problems.push(problem(field, 'unknown_field', `${spec.key} has no requirement ${field}`));
    else if (!r.mintable) problems.push(problem(field, 'conflict', 'this field cannot be generated'));
    if (Object.hasOwn(inputs.values, field))
      problems.push(problem(field, 'conflict', 'given and generated at once: send one or the other'));
  }
  const perSeat = [...Object.keys(inputs.values), ...inputs.generate].some((f) => fields.get(f)?.per_seat);
  // A blank seat (values are trimmed) names nobody, as a missing one does.
  const seat = inputs.values['seat'];
  if (perSeat && (typeof seat !== 'string' || seat === ''))
    problems.push(problem('seat', 'missing', 'per-seat credentials need the seat they belong to'));
  if (problems.length > 0) throw new InputsRefused('invalid_body', problems);
}

/** The document value a non-secret input becomes. */
function documentValue(r: Requirement, value: string | boolean): unknown {
  if (typeof value === 'boolean' || value === '') return value === '' ? undefined : value;
  if (r.shape === 'list')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (r.shape === 'integer') return Number(value);
  return value.trim();
}

/**
 * A vendor id (`kind: 'id'`, and tracker-b's `username_prefix`): spliced into a vendor URL or compared as
 * sent, so it must have the vendor's shape (vendor-ids.ts). `sent` is the value before trimming: blank is refused, where `""` removes the field.
 */
function idProblem(r: Requirement, sent: unknown, value: string): InputProblem | null {
  if ((r.kind !== 'id' && !hasVendorShape(r.field)) || typeof sent !== 'string') return null;
  if (sent !== '' && value === '') return problem(r.field, 'shape', 'blank: send "" to remove it');
  if (value === '' || hasRef(value)) return null;
  const wrong = vendorIdProblem(r.field, value);
  return wrong === null ? null : problem(r.field, wrong.kind, wrong.message);
}

/** A URL carrying a query or fragment: the vendor paths a pass appends would land inside it. */
function baseUrlWithSuffix(value: string): boolean {
  try {
    const url = new URL(value);
    return url.search !== '' || url.hash !== '' || /[?#]/.test(value);
  } catch {
    return false; // not a URL at all: the document's own validation names it
  }
}

/** Checks values against what the kind accepts (400 `validation_error`); `sent` is the body before trimming. */
function checkValues(spec: KindSpec, inputs: SetupInputs, sent: SetupInputs, seats: readonly string[]): void {
  const problems: InputProblem[] = [];
  for (const r of spec.requirements) {
    const value = inputs.values[r.field];
    const wrongId = typeof value === 'string' ? idProblem(r, sent.values[r.field], value) : null;
    if (wrongId !== null) problems.push(wrongId);
    if (typeof value !== 'string' || value === '') continue;
    if (r.kind === 'url' && !hasRef(value) && baseUrlWithSuffix(value.trim()))
      problems.push(
        problem(r.field, 'shape', 'a base URL without a query (?) or fragment (#): vendor paths follow it'),
      );
    if (r.kind === 'handle' && !seats.includes(value))
      problems.push(problem(r.field, 'unknown_value', 'names no agent seat of the company'));
    if (r.kind === 'choice' && r.choices && !r.choices.includes(value.trim().toLowerCase()))
      problems.push(problem(r.field, 'unknown_value', `one of ${r.choices.join(', ')}`));
    if (r.shape === 'integer' && !/^[1-9][0-9]{0,8}$/.test(value.trim()))
      problems.push(problem(r.field, 'out_of_range', 'a positive whole number'));
    if (r.min_length !== undefined && value.length < r.min_length)
      problems.push(problem(r.field, 'out_of_range', `needs at least ${r.min_length} characters`));
    if (r.kind === 'secret' && Buffer.byteLength(value, 'utf8') > SECRET_VALUE_MAX_BYTES)
      problems.push(
        problem(r.field, 'out_of_range', `a secret holds at most ${SECRET_VALUE_MAX_BYTES} bytes`),
      );
  }
  if (problems.length > 0) throw new InputsRefused('validation_error', problems);
}

/**
 * Plans the inputs against the active document (`null` when none is active); `seats` are the handles
 * a handle field may name.
 * @example planInputs(codehostASetup, { values: {}, generate: ['webhook_secret'] }, doc, [], mint)
 */
export function planInputs(
  spec: KindSpec,
  inputs: SetupInputs,
  document: JsonObject | null,
  seats: readonly string[],
  mint: (r: Requirement) => string,
): InputsPlan {
  const sent = inputs;
  inputs = trimmed(inputs);
  checkShape(spec, inputs);
  checkValues(spec, inputs, sent, seats);
  const seat = typeof inputs.values['seat'] === 'string' ? inputs.values['seat'] : null;
  const seals: Seal[] = [];
  const written: string[] = [];
  let doc = document;
  const edit = (segments: Array<string | number>, value: unknown): void => {
    if (doc === null) throw new NoDocument();
    doc = withValue(doc, segments, value);
  };
  for (const r of spec.requirements) {
    const generated = inputs.generate.includes(r.field);
    const given = inputs.values[r.field];
    if (!generated && given === undefined) continue;
    if (r.kind === 'handle' && r.config_path === null) continue;
    let at: Array<string | number> | null = r.config_path === null ? null : segmentsOf(r.config_path);
    if (r.per_seat && at !== null) {
      const seatAt = seat === null || doc === null ? null : seatSegments(doc, seat);
      if (seatAt === null) throw new NoDocument();
      at = [...seatAt, ...at];
    }
    if (r.kind === 'secret') {
      const current = at === null || doc === null ? undefined : valueAt(doc, at);
      const declared =
        r.secret_name ?? `SVC_${spec.key.toUpperCase().replace(/-/g, '_')}_${r.field.toUpperCase()}`;
      // Keep the operator's own variable when the document already names one.
      const name =
        typeof current === 'string' && isWholeRef(current)
          ? current.slice(2, -1)
          : seatSecretName(declared, seat ?? '');
      // The store refuses such a name; found only at sealing, it would follow a stored revision.
      if (!isSecretName(name))
        throw new InputsRefused('validation_error', [
          problem(
            r.field,
            'out_of_range',
            `the document references a secret name longer than the store takes (${SECRET_NAME_MAX} characters); reference a shorter one`,
          ),
        ]);
      seals.push({ field: r.field, name, value: generated ? mint(r) : String(given), generated });
      if (at !== null) {
        edit(at, `\${${name}}`);
        written.push(r.field);
      }
      continue;
    }
    if (at === null) continue;
    if (r.kind === 'toggle' && at.length === 2) {
      // The chat marker: true writes the (empty) block, false removes it.
      const current = doc === null ? undefined : valueAt(doc, at);
      edit(at, given === true ? (current ?? {}) : undefined);
    } else {
      edit(at, documentValue(r, given as string | boolean));
    }
    written.push(r.field);
  }
  return { seals, written, document: written.length > 0 ? doc : null };
}

/** A field that lives in the document was given while no revision is active (or the seat vanished). */
export class NoDocument extends Error {
  override name = 'NoDocument';
}
