/**
 * A seat's `sandbox` settings from the company document (spec: `setup`, `env`, `default_coding_agent`):
 * the setup steps as a list, `${VAR}` references in `env` resolved, and the coding agent's command line.
 * A seat without `sandbox`, or without a coding agent, has no sandbox (it is not offered `run_sandbox`).
 * Its secrets — the values of `env` entries whose name signals a credential (redacted in config reads)
 * and every value a reference resolved to — are kept out of what a run says about itself (`scrubRun`).
 */
import {
  listRefs,
  namesSecret,
  substituteRefs,
  walkCompany,
  type Company,
  type Resolver,
  type SandboxRunRecord,
} from '../../schema/index.js';
import type { SandboxSettings } from './backend.js';

export interface SeatSandbox {
  readonly handle: string;
  readonly role: string;
  readonly coding_agent: string;
  readonly settings: SandboxSettings;
  /** The forms of its secret values that text could carry, longest first. */
  readonly secrets: readonly string[];
}

/** Values shorter than this are too common to scrub from text without garbling it. */
const minSecretLength = 4;

/** A value whole, and each line of a multi-line one (a key echoed line by line), longest first. */
function secretForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    forms.add(value);
    for (const line of value.split(/\r?\n/)) forms.add(line.trim());
  }
  return [...forms].filter((f) => f.length >= minSecretLength).sort((a, b) => b.length - a.length);
}

export function seatSandbox(company: Company | null, handle: string, resolve: Resolver): SeatSandbox | null {
  if (company === null) return null;
  const found = walkCompany(company).seatByHandle.get(handle);
  if (!found || found.kind === 'human') return null;
  const { seat } = found;
  const command = seat.sandbox?.default_coding_agent?.trim() ?? '';
  if (command === '') return null;
  const setupRaw = seat.sandbox?.setup;
  const setup = typeof setupRaw === 'string' ? [setupRaw] : (setupRaw ?? []);
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, value] of Object.entries(seat.sandbox?.env ?? {})) {
    env[key] = substituteRefs(value, resolve);
    if (namesSecret(key)) secrets.push(env[key]);
    for (const name of listRefs(value)) secrets.push(resolve(name) ?? '');
  }
  return {
    handle,
    role: seat.name,
    coding_agent: command,
    settings: { setup: setup.filter((s) => s.trim() !== ''), env, command },
    secrets: secretForms(secrets),
  };
}

const scrub = (text: string, secrets: readonly string[]): string =>
  secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);

/** The run with `secrets` scrubbed from what its agent or setup wrote: question, summary, error. */
export function scrubRun(run: SandboxRunRecord, secrets: readonly string[]): SandboxRunRecord {
  if (secrets.length === 0) return run;
  return {
    ...run,
    question: run.question === null ? null : scrub(run.question, secrets),
    ...(run.summary === undefined ? {} : { summary: scrub(run.summary, secrets) }),
    ...(run.error === undefined || run.error === null ? {} : { error: scrub(run.error, secrets) }),
  };
}
