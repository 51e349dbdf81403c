/**
 * validateCompany: the one entry point every write, dry run, reload and revert goes through.
 *  0. nesting: a document deeper than the limit is refused before anything recurses over it, so no
 *     document that could break a read is ever stored;
 *  1. shape: the zod schema, every issue mapped to a spec problem kind;
 *  2. rules between fields, run on the parsed input even when the shape failed, so an operator
 *     sees every problem at once;
 *  3. admission rules: problems in `write` mode, `admission` warnings in `runnable` mode;
 *  4. attribution (seat handle, unit name) and YAML lines;
 *  5. ratcheting: with the active revision given, a problem it already holds at the same path with the
 *     same value is an `admission` warning (ratchet.ts);
 *  6. `derived` for any document that parsed into a map; `document` (normalised) when valid.
 */
import { admissionRules } from './admission.js';
import { Company } from './company.schema.js';
import { deriveCompany, quotedDerived, type Derived } from './derived.js';
import { knownKeysAt } from './known-keys.js';
import { nestingProblem } from './nesting.js';
import { seatsWithoutProvider } from './no-provider.js';
import { notAppliedSettings } from './not-applied.js';
import { projectTwins } from './project-twins.js';
import { companyRenamed } from './company-renamed.js';
import { heldMessage, ratchet, type RatchetBasis } from './ratchet.js';
import { normaliseCompany } from './normalise.js';
import {
  findingsOf,
  pathOf,
  ProblemKind,
  WarningKind,
  type CompanyProblem,
  type CompanyWarning,
  type Finding,
  type Segment,
} from './problems.js';
import { collectFindings } from './rule-context.js';
import { handleRules, leadRules, managesRules, placementRules, unitNameRules } from './rules-org.js';
import { integrationRules, mcpServerRules, providerRules } from './rules-integrations.js';
import { transportRules } from './transports.js';
import { contactRules, scheduleRules, seatKindRules, seatProviderRules } from './rules-seats.js';
import { isRecord, locate, walkDocument } from './walk.js';
import { yamlLines } from './yaml-lines.js';
import { cutForQuote } from '../text-grammars.js';

export const ValidationMode = { Write: 'write', Runnable: 'runnable' } as const;
export type ValidationMode = (typeof ValidationMode)[keyof typeof ValidationMode];

export interface ValidateOptions {
  /** `write`: a new document (admission rules refuse). `runnable`: a stored revision (they warn). */
  readonly mode: ValidationMode;
  /** The YAML body the input was parsed from, for `line` on problems and warnings. */
  readonly yamlText?: string;
  /**
   * Keys a newer build wrote that the stored document already held (write rule 8): not refused as
   * unknown fields, since this build cannot judge them; they are stored as they are.
   */
  readonly carried?: ReadonlyArray<ReadonlyArray<Segment>>;
  /**
   * The active revision the write replaces, with its own problems under the same mode: what it already
   * holds does not refuse the write (ratchet.ts). Never applied to the nesting limit (step 0).
   */
  readonly active?: RatchetBasis;
}

export interface CompanyValidation {
  readonly valid: boolean;
  readonly problems: CompanyProblem[];
  readonly warnings: CompanyWarning[];
  /**
   * Null when the input is not a map, or nests past the limit (nothing walks it then). Names are cut as an
   * answer quotes them (quotedDerived); problems and warnings quote theirs cut too.
   */
  readonly derived: Derived | null;
  /** The normalised document (see normalise.ts); null unless valid. */
  readonly document: Company | null;
}

const rules = [
  handleRules,
  unitNameRules,
  placementRules,
  leadRules,
  managesRules,
  seatKindRules,
  contactRules,
  seatProviderRules,
  scheduleRules,
  providerRules,
  mcpServerRules,
  integrationRules,
  transportRules,
];

/**
 * Validates a parsed company document.
 *
 * @example validateCompany(parsed, { mode: 'write', yamlText: body }).problems
 */
export function validateCompany(input: unknown, opts: ValidateOptions): CompanyValidation {
  if (!isRecord(input)) {
    const problem = {
      path: '',
      segments: [],
      kind: ProblemKind.Shape,
      message: 'the company document must be a map',
    };
    return { valid: false, problems: [problem], warnings: [], derived: null, document: null };
  }
  // 0. nesting
  const tooDeep = nestingProblem(input, opts.yamlText);
  if (tooDeep !== null)
    return { valid: false, problems: [tooDeep], warnings: [], derived: null, document: null };
  // 1. shape
  const shape = Company.safeParse(input);
  const carried = new Set((opts.carried ?? []).map((segments) => JSON.stringify(segments)));
  const shapeFindings = shape.success
    ? []
    : shape.error.issues
        .flatMap((issue) => findingsOf(issue, input, knownKeysAt))
        .filter((f) => f.kind !== ProblemKind.UnknownField || !carried.has(JSON.stringify(f.segments)));
  // 2-3. rules between fields
  const walk = walkDocument(input);
  const admissionRefused = opts.mode === ValidationMode.Write;
  const found = collectFindings(input, walk, [...rules, admissionRules]);
  // 4. attribution and lines
  const lineOf = opts.yamlText === undefined ? () => undefined : yamlLines(opts.yamlText);
  const place = (segments: Segment[]) => {
    const line = lineOf(segments);
    return {
      path: pathOf(segments),
      segments,
      ...locate(walk, segments),
      ...(line !== undefined && { line }),
    };
  };
  const asProblem = (f: Finding): CompanyProblem => ({
    ...place(f.segments),
    kind: f.kind,
    message: f.message,
  });
  const all = dedupe([...shapeFindings, ...found.problems, ...(admissionRefused ? found.admission : [])]).map(
    asProblem,
  );
  // 5. ratcheting
  const { kept: problems, held } = opts.active ? ratchet(all, input, opts.active) : { kept: all, held: [] };
  const warnings: CompanyWarning[] = [
    ...held.map(({ kind: _kind, message, ...at }) => ({
      ...at,
      kind: WarningKind.Admission,
      message: heldMessage(message),
    })),
    ...found.dangling.map(({ segments, ...rest }) => ({
      ...place(segments),
      kind: WarningKind.DanglingReference,
      ...quotedEnds(rest),
    })),
    ...(admissionRefused ? [] : found.admission).map((f) => ({
      ...place(f.segments),
      kind: WarningKind.Admission,
      message: f.message,
    })),
    ...notAppliedSettings(input).map((f) => ({
      ...place(f.segments),
      kind: WarningKind.NotApplied,
      message: f.message,
    })),
    ...seatsWithoutProvider(input, walk).map((f) => ({
      ...place(f.segments),
      kind: WarningKind.NoProvider,
      message: f.message,
    })),
    ...projectTwins(walk).map(({ segments, ...rest }) => ({
      ...place(segments),
      kind: WarningKind.DuplicateProject,
      ...quotedEnds(rest),
    })),
    ...renamedFrom(input, opts.active?.document),
  ];
  // 6. meaning
  const valid = problems.length === 0;
  return {
    valid,
    problems,
    warnings,
    derived: quotedDerived(deriveCompany(walk, input['name'])),
    document: valid ? (normaliseCompany(input) as Company) : null,
  };
}

/** The `company_renamed` warning of a write that changes the active document's `name` (company-renamed.ts). */
function renamedFrom(input: Record<string, unknown>, active: unknown): CompanyWarning[] {
  const rename = active === undefined ? null : companyRenamed(input, active);
  return rename ? [{ path: 'name', segments: ['name'], kind: WarningKind.CompanyRenamed, ...rename }] : [];
}

/** A warning's `from` and `to` (what refers and what it names, as written), cut as an answer quotes them. */
function quotedEnds<T extends { readonly from?: string; readonly to: string }>(warning: T): T {
  return {
    ...warning,
    ...(warning.from !== undefined && { from: cutForQuote(warning.from) }),
    to: cutForQuote(warning.to),
  };
}

/** The schema and a rule may both see one fault at one place; report it once. */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${pathOf(f.segments)}\u0000${f.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
