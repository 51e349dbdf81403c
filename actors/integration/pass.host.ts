/**
 * Runs one provisioning pass against the vendor's API: the integration actor's `run_pass` effect. A pass
 * never throws: an unreachable or refusing vendor makes a failed run with a reason in our words. Runs
 * are remembered by the stream (SVC_INTEGRATIONS), not here.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { kindSpec, type PassMode, type PassRun, type PassStep } from '../../schema/index.js';
import {
  codehostBPass,
  localPass,
  sitePass,
  trackerBPass,
  VendorError,
  type VendorPass,
  whoAmIPath,
} from './vendors/index.js';
import { record, type RegisteredHook } from './vendors/pass-context.js';

export interface PassRequest {
  /** The run's id (default a fresh one) and when it started (default now): as its start was recorded. */
  readonly id?: string;
  readonly startedAt?: string;
  readonly kind: string;
  readonly mode: PassMode;
  readonly actor: string;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly publicUrl: string | null;
  readonly agentSeats: readonly string[];
  /** Agent seats that already carry their own token for this kind (none is minted for them). */
  readonly seatsWithToken: readonly string[];
  /** Resolved values the run names by their `${VAR}` instead (PassInput). */
  readonly withheld?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  /** Given only when minted seat credentials can be sealed: receives each one (never logged, never in the run). */
  readonly keep?: (seat: string, value: string) => void;
  /** The webhooks the kind's passes registered and last saw at the vendor (default none). */
  readonly hooks?: readonly RegisteredHook[];
  /** Receives the webhooks to remember after the pass, when the pass reached its webhook step. */
  readonly rememberHooks?: (hooks: readonly RegisteredHook[]) => void;
}

export interface PassHostOptions {
  readonly nodeId: string;
  readonly logger: Logger;
  /** Per vendor call. Default 10 s. */
  readonly callTimeoutMs?: number;
  /** The cloud sites' API gateway (`SVC_CLOUD_SITE_API_URL`); default its public address. */
  readonly cloudApiUrl?: string;
}

const passes: Readonly<Record<string, VendorPass>> = {
  'codehost-b': codehostBPass,
  'tracker-b': trackerBPass,
  'tracker-a': sitePass('tracker-a', whoAmIPath['tracker-a']),
  wiki: sitePass('wiki', whoAmIPath.wiki),
};

/** Replaces each withheld value, as written and as a path segment encodes it, with `${NAME}`; longest first. */
function scrubber(withheld: ReadonlyArray<{ readonly name: string; readonly value: string }>) {
  const forms = withheld
    .flatMap(({ name, value }) =>
      [value, encodeURIComponent(value)].map((text) => ({ text, ref: `\${${name}}` })),
    )
    .filter(({ text }) => text !== '')
    .sort((a, b) => b.text.length - a.text.length);
  return (text: string): string => forms.reduce((out, { text: v, ref }) => out.split(v).join(ref), text);
}

export function createPassHost(opts: PassHostOptions) {
  return {
    async run(request: PassRequest): Promise<PassRun> {
      const steps: PassStep[] = [];
      const started = request.startedAt ?? new Date().toISOString();
      const ctx = {
        mode: request.mode,
        settings: request.settings,
        publicUrl: request.publicUrl,
        inboundPath: kindSpec(request.kind)?.inbound_path ?? '',
        hooks: request.hooks ?? [],
        rememberHooks: (hooks: readonly RegisteredHook[]) => request.rememberHooks?.(hooks),
        agentSeats: request.agentSeats,
        seatsWithToken: request.seatsWithToken,
        ...(request.keep ? { keep: request.keep } : {}),
        timeoutMs: opts.callTimeoutMs ?? 10_000,
        ...(opts.cloudApiUrl ? { cloudApiUrl: opts.cloudApiUrl } : {}),
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
      // A vendor path spliced from a withheld value (a stored workspace, group, ...) names its reference.
      const scrub = scrubber(request.withheld ?? []);
      reason = reason === null ? null : scrub(reason);
      for (const [i, s] of steps.entries()) steps[i] = { ...s, detail: scrub(s.detail) };
      const run: PassRun = {
        id: request.id ?? randomUUID(),
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
      opts.logger.info(
        {
          event: 'setup_pass',
          kind: run.kind,
          mode: run.mode,
          run_id: run.id,
          actor: request.actor,
          status: run.status,
          reason,
        },
        'provisioning pass finished',
      );
      return run;
    },
  };
}
