/**
 * A seat's `sandbox` settings from the company document (spec: `setup`, `env`, `default_coding_agent`):
 * the setup steps as a list, `${VAR}` references in `env` resolved, and the coding agent's command line.
 * A seat without `sandbox`, or without a coding agent, has no sandbox (it is not offered `run_sandbox`).
 */
import { substituteRefs, walkCompany, type Company, type Resolver } from '../../schema/index.js';
import type { SandboxSettings } from './backend.js';

export interface SeatSandbox {
  readonly handle: string;
  readonly role: string;
  readonly coding_agent: string;
  readonly settings: SandboxSettings;
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
  for (const [key, value] of Object.entries(seat.sandbox?.env ?? {}))
    env[key] = substituteRefs(value, resolve);
  return {
    handle,
    role: seat.name,
    coding_agent: command,
    settings: { setup: setup.filter((s) => s.trim() !== ''), env, command },
  };
}
