/**
 * A seat's `sandbox` settings from the company document (spec: `setup`, `env`, `default_coding_agent`):
 * the setup steps as a list, `${VAR}` references in `env` resolved, and the coding agent's command line.
 * A seat without `sandbox`, or without a coding agent, has no sandbox (it is not offered `run_sandbox`).
 */
import { isRecord, seatIdentity, substituteRefs, type Resolver } from '../../schema/index.js';
import type { SandboxSettings } from './backend.js';

export interface SeatSandbox {
  readonly handle: string;
  readonly role: string;
  readonly coding_agent: string;
  readonly settings: SandboxSettings;
}

function seatsOf(document: unknown): unknown[] {
  if (!isRecord(document)) return [];
  const out: unknown[] = Array.isArray(document['roles']) ? [...(document['roles'] as unknown[])] : [];
  const walk = (units: unknown): void => {
    if (!Array.isArray(units)) return;
    for (const unit of units) {
      if (!isRecord(unit)) continue;
      if (Array.isArray(unit['roles'])) out.push(...(unit['roles'] as unknown[]));
      walk(unit['children']);
    }
  };
  walk(document['units']);
  return out;
}

export function seatSandbox(document: unknown, handle: string, resolve: Resolver): SeatSandbox | null {
  for (const seat of seatsOf(document)) {
    if (!isRecord(seat) || seatIdentity(seat) !== handle || seat['kind'] === 'human') continue;
    const sandbox = seat['sandbox'];
    if (!isRecord(sandbox)) return null;
    const command =
      typeof sandbox['default_coding_agent'] === 'string' ? sandbox['default_coding_agent'].trim() : '';
    if (command === '') return null;
    const setupRaw = sandbox['setup'];
    const setup = typeof setupRaw === 'string' ? [setupRaw] : Array.isArray(setupRaw) ? setupRaw : [];
    const env: Record<string, string> = {};
    if (isRecord(sandbox['env']))
      for (const [key, value] of Object.entries(sandbox['env']))
        if (typeof value === 'string') env[key] = substituteRefs(value, resolve);
    return {
      handle,
      role: typeof seat['name'] === 'string' ? seat['name'] : handle,
      coding_agent: command,
      settings: {
        setup: setup.filter((s): s is string => typeof s === 'string' && s.trim() !== ''),
        env,
        command,
      },
    };
  }
  return null;
}
