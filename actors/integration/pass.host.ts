/**
 * Runs provisioning passes and remembers them (spec: "passes this node remembers"). A pass never
 * throws: an unreachable or refusing vendor makes a failed run with a reason in our words.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PassMode, PassRun, PassStep } from '../../schema/index.js';
import {
  codehostBPass,
  localPass,
  sitePass,
  trackerBPass,
  VendorError,
  type VendorPass,
} from './vendors/index.js';
import { record } from './vendors/pass-context.js';

export interface PassRequest {
  readonly kind: string;
  readonly mode: PassMode;
  readonly actor: string;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly publicUrl: string | null;
  readonly agentSeats: readonly string[];
  /** Agent seats that already carry their own token for this kind (none is minted for them). */
  readonly seatsWithToken: readonly string[];
  /** Given only when minted seat credentials can be sealed: receives each one (never logged, never in the run). */
  readonly keep?: (seat: string, value: string) => void;
}

export interface PassHostOptions {
  readonly nodeId: string;
  readonly logger: Logger;
  /** Per vendor call. Default 10 s. */
  readonly callTimeoutMs?: number;
  /** Runs remembered per kind. Default 100. */
  readonly keep?: number;
}

const passes: Readonly<Record<string, VendorPass>> = {
  'codehost-b': codehostBPass,
  'tracker-b': trackerBPass,
  'tracker-a': sitePass('tracker-a', '/rest/api/2/myself'),
  wiki: sitePass('wiki', '/rest/api/user/current'),
};

export function createPassHost(opts: PassHostOptions) {
  const runs = new Map<string, PassRun[]>();
  const keep = opts.keep ?? 100;
  return {
    async run(request: PassRequest): Promise<PassRun> {
      const steps: PassStep[] = [];
      const started = new Date().toISOString();
      const ctx = {
        mode: request.mode,
        settings: request.settings,
        publicUrl: request.publicUrl,
        agentSeats: request.agentSeats,
        seatsWithToken: request.seatsWithToken,
        ...(request.keep ? { keep: request.keep } : {}),
        timeoutMs: opts.callTimeoutMs ?? 10_000,
        step: record(steps),
      };
      let reason: string | null = null;
      try {
        const pass = passes[request.kind];
        await (pass ? pass(ctx) : localPass(request.kind, ctx));
      } catch (error) {
        // Our own words only: VendorError messages never quote a vendor's body.
        reason =
          error instanceof VendorError ? error.message : `${request.kind}: the pass stopped unexpectedly`;
        if (!(error instanceof VendorError))
          opts.logger.error(
            { err: error instanceof Error ? error.name : 'unknown', kind: request.kind },
            'pass crashed',
          );
        steps.push({ name: 'stopped', outcome: 'failed', detail: reason });
      }
      const run: PassRun = {
        id: randomUUID(),
        kind: request.kind,
        mode: request.mode,
        node: opts.nodeId,
        actor: request.actor,
        started_at: started,
        finished_at: new Date().toISOString(),
        status: reason === null ? 'succeeded' : 'failed',
        reason,
        steps,
      };
      const list = runs.get(request.kind) ?? [];
      list.unshift(run);
      list.splice(keep);
      runs.set(request.kind, list);
      opts.logger.info(
        { event: 'setup_pass', kind: run.kind, mode: run.mode, run_id: run.id, status: run.status, reason },
        'provisioning pass finished',
      );
      return run;
    },
    list(kind: string, page: { before?: string; limit: number }): { runs: PassRun[]; more: boolean } {
      const list = runs.get(kind) ?? [];
      const start = page.before === undefined ? 0 : list.findIndex((r) => r.id === page.before) + 1;
      if (page.before !== undefined && start === 0) return { runs: [], more: false };
      return { runs: list.slice(start, start + page.limit), more: list.length > start + page.limit };
    },
    get(kind: string, id: string): PassRun | null {
      return (runs.get(kind) ?? []).find((r) => r.id === id) ?? null;
    },
  };
}
export type PassHost = ReturnType<typeof createPassHost>;
