/**
 * Which alarms a node has, decided from its facts (ops/fleet.md "Alarms"). Pure: the host gathers the
 * facts and publishes what `changes` reports; a condition that ends clears its alarm on the next look.
 */
import { Payloads, ToolServerState, type NodeAlarms, type Posture } from '../../schema/index.js';

const { AlarmKind, AlarmSeverity } = Payloads;
type AlarmKind = Payloads.AlarmKind;
type AlarmSeverity = Payloads.AlarmSeverity;

/** Restarts after which a tool server still failing counts as crash-looping. */
export const CRASH_LOOP_RESTARTS = 3;

/** What the rules look at, gathered by the host on each evaluation. */
export interface AlarmFacts {
  /** The bus engine reaches its broker (its streams). */
  readonly busLinked: boolean;
  /**
   * The configuration posture the node's last concluded apply left (never `wait`: an apply running reads as
   * the posture it started from, so its alarm ends when an apply succeeds); null while booting.
   */
  readonly posture: Posture | null;
  /** Seconds this node has been behind a peer that has the active epoch (0 when not behind). */
  readonly lagSeconds: number;
  /** Refused budget scopes: `org` and `seat:<handle>` (projections' budget report). */
  readonly budgetRefused: readonly string[];
  /** This node's tool server instances. */
  readonly toolServers: ReadonlyArray<{
    readonly server: string;
    readonly seat: string | null;
    /** `starting` after a failure is still failing: only `started` (or removal) ends a crash loop. */
    readonly state: ToolServerState;
    readonly restarts: number;
  }>;
  /** LLM providers none of whose keys resolves: each key's `${VAR}` name (or `api_keys[i]`). */
  readonly keylessProviders: ReadonlyArray<{
    readonly provider: string;
    readonly unresolved: readonly string[];
  }>;
  /** Another process writes this node's id (its presence record): admission is withheld on both. */
  readonly duplicateNodeId?: boolean;
  /** The reconcile findings of the integrations (ops/setup.md): what each enabled one lacks. */
  readonly setupFindings?: ReadonlyArray<{
    readonly finding: string;
    readonly integration: string;
    readonly missing: readonly string[];
    /** Of those, the ones whose `${NAME}` is stored sealed under a key this node's keyring lacks. */
    readonly unreadable?: ReadonlyArray<{
      readonly label: string;
      readonly name: string;
      readonly key_id: string;
    }>;
  }>;
}

export interface Alarm {
  /** One condition on one node: the kind, plus `:scope` when the kind has several (a seat, a server). */
  readonly id: string;
  readonly kind: AlarmKind;
  readonly severity: AlarmSeverity;
  readonly detail: string;
}

/** The alarms `facts` raise, by id. */
export function evaluate(facts: AlarmFacts): Map<string, Alarm> {
  const out = new Map<string, Alarm>();
  const add = (kind: AlarmKind, severity: AlarmSeverity, detail: string, scope?: string): void => {
    const id = scope === undefined ? kind : `${kind}:${scope}`;
    out.set(id, { id, kind, severity, detail });
  };
  if (!facts.busLinked)
    add(
      AlarmKind.BusUnreachable,
      AlarmSeverity.Critical,
      'the node cannot reach its streams (bus broker lost)',
    );
  if (facts.duplicateNodeId)
    add(
      AlarmKind.DuplicateNodeId,
      AlarmSeverity.Critical,
      'another process runs with this node id: admission withheld (no seat or duty taken) until it stops',
    );
  if (facts.posture === 'shed')
    add(
      AlarmKind.NodeShed,
      AlarmSeverity.Critical,
      'the node lagged the fleet epoch past 45 s and left rotation',
    );
  else if (facts.lagSeconds > 0)
    add(
      AlarmKind.ConfigLagging,
      AlarmSeverity.Warning,
      `the node is ${facts.lagSeconds} s behind a peer on the active configuration epoch`,
    );
  if (facts.posture === 'stuck')
    add(
      AlarmKind.ApplyStuck,
      AlarmSeverity.Critical,
      // Both ways here: the cause is on the revision's failure event and in the log.
      'the active configuration is not applied on this node: its revision cannot be opened here (a missing key), its apply failed and the rollback failed too, or its apply failed with no prior revision to fall back to (retried every 15 s)',
    );
  if (facts.posture === 'isolated')
    add(
      AlarmKind.ApplyIsolated,
      AlarmSeverity.Warning,
      'a configuration apply failed; the node serves its prior revision',
    );
  for (const scope of facts.budgetRefused) {
    const org = scope === 'org';
    add(
      AlarmKind.BudgetExhausted,
      org ? AlarmSeverity.Critical : AlarmSeverity.Warning,
      org ? 'the org token budget is spent: every seat is stopped' : `the token budget of ${scope} is spent`,
      scope,
    );
  }
  for (const s of facts.toolServers) {
    // Between two failures the instance is `starting` (a restart attempt) before `backoff` again; testing
    // `backoff` alone cleared and re-raised the alarm on every attempt of a server that never comes up.
    const failing = s.state === ToolServerState.Backoff || s.state === ToolServerState.Starting;
    if (!failing || s.restarts < CRASH_LOOP_RESTARTS) continue;
    const name = s.seat === null ? s.server : `${s.server}@${s.seat}`;
    add(
      AlarmKind.ToolServerCrashLoop,
      AlarmSeverity.Warning,
      `tool server ${name} keeps failing (${s.restarts} restarts)`,
      name,
    );
  }
  for (const p of facts.keylessProviders) {
    const names = p.unresolved.map((ref) => (ref.startsWith('api_keys[') ? ref : `\${${ref}}`)).join(', ');
    add(
      AlarmKind.ProviderNoKey,
      AlarmSeverity.Warning,
      `LLM provider ${p.provider} has no key: ${names} resolves to nothing (secret store, then environment)`,
      p.provider,
    );
  }
  for (const f of facts.setupFindings ?? [])
    add(AlarmKind.SetupIncomplete, AlarmSeverity.Warning, setupDetail(f), f.finding);
  return out;
}

/**
 * What a setup finding lacks: a value that is there but sealed under a key this node's keyring lacks is
 * named with that key (restore the key or enter the value again), not called unset.
 */
function setupDetail(f: NonNullable<AlarmFacts['setupFindings']>[number]): string {
  const sealed = f.unreadable ?? [];
  const unset = f.missing.filter((label) => !sealed.some((u) => u.label === label));
  const parts = [
    ...(unset.length > 0 ? [`${unset.join(', ')} (unset, or its \${VAR} resolves to nothing)`] : []),
    ...sealed.map(
      (u) => `${u.label}: \${${u.name}} is sealed under key ${u.key_id}, which this node's keyring lacks`,
    ),
  ];
  return `${f.integration} lacks ${parts.join('; ')}; see /setup/integrations/${f.integration}`;
}

/** What changed between two evaluations: alarms to announce raised, and alarms to announce cleared. */
export function changes(
  before: ReadonlyMap<string, Alarm>,
  after: ReadonlyMap<string, Alarm>,
): { readonly raised: Alarm[]; readonly cleared: Alarm[] } {
  return {
    raised: [...after.values()].filter((a) => !before.has(a.id)),
    cleared: [...before.values()].filter((a) => !after.has(a.id)),
  };
}

/** `/health` `alarms`: the count, and the worst severity when any is raised. */
export function summary(active: ReadonlyMap<string, Alarm>): { count: number; worst?: AlarmSeverity } {
  const severities = [...active.values()].map((a) => a.severity);
  if (severities.length === 0) return { count: 0 };
  const worst = severities.includes(AlarmSeverity.Critical) ? AlarmSeverity.Critical : AlarmSeverity.Warning;
  return { count: severities.length, worst };
}

/** The most alarm names a presence record carries (`count` still counts every alarm). */
const announcedNames = 16;

/** What a node's presence record says of its alarms (ops/fleet.md "The fleet routes"): names critical first. */
export function announced(active: ReadonlyMap<string, Alarm>): NodeAlarms {
  const rank = (a: Alarm): number => (a.severity === AlarmSeverity.Critical ? 0 : 1);
  const names = [...active.values()]
    .sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, announcedNames)
    .map((a) => a.id);
  return { ...summary(active), names };
}
