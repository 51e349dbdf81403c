/**
 * Fleet: nodes, their roles, epochs, postures, alarms, seats and duties, and the seat leases (the `fleet`
 * question, guarded); an expired node can be removed (`POST /fleet/broker/remove/{node}`) behind a confirm
 * step. A node id written by more than one live process (its row's `duplicates`) is marked and each process
 * named.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useConnection, useLiveSlice, useQuestion } from '../live/context.js';
import { ConfirmAction, OutcomeStatus, type Outcome } from '../ui/confirm.js';
import { time } from '../ui/format.js';
import { Badge, Card, Hint, Stat, Table, Unread } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

/** Where a process writing a node id runs (a presence record's own fields). */
interface FleetProcess {
  host?: string | null;
  pid?: number | null;
  api?: { host: string; port: number } | null;
  started_at: string;
}
/** A node's alarms as its presence record announces them: names critical first, at most 16. */
interface NodeAlarms {
  count: number;
  worst?: string;
  names: string[];
}
interface FleetNode extends FleetProcess {
  id: string;
  roles: string[];
  version: string;
  applied_epoch: number;
  /** As `/health` names it; null from a node of an earlier release. */
  posture: string | null;
  /** Null before the node's first evaluation, or from an earlier release. */
  alarms: NodeAlarms | null;
  renewed_at: string;
  expires_at: string;
  seats: string[];
  duties: string[];
  store?: { engine: string; dir?: string };
  /** Other live processes writing this id (a duplicate node id); absent otherwise. */
  duplicates?: FleetProcess[];
}
interface Fleet {
  node: string;
  read_at: string;
  complete: boolean;
  nodes: FleetNode[];
  /** Presence records that ran out: nodes gone (stopped or dead) an operator may remove. */
  expired?: Array<{ node: string; expired_at: string }>;
  seats: Record<string, { node: string; epoch: number; expires_at: string }>;
}

/** The words `svc serve` uses for a process (ops/fleet.md): pid, host, API address, start. */
function describeProcess(p: FleetProcess): string {
  return [
    p.pid == null ? null : `pid ${p.pid}`,
    p.host == null ? null : `on host ${p.host}`,
    p.api == null ? 'no API listener' : `API ${p.api.host}:${p.api.port}`,
    `started ${time(p.started_at)}`,
  ]
    .filter((part) => part !== null)
    .join(', ');
}

/**
 * Each node id more than one live process writes: both withhold admission until one stops, which the row
 * alone (one healthy-looking node) would not tell.
 */
function Duplicates(props: { nodes: FleetNode[] }) {
  const dup = props.nodes.filter((n) => (n.duplicates?.length ?? 0) > 0);
  if (dup.length === 0) return null;
  return (
    <>
      {dup.map((n) => (
        <div class="notice error" key={n.id} data-duplicate={n.id}>
          <p>
            <strong>Duplicate node id {n.id}</strong>: written by {1 + (n.duplicates?.length ?? 0)} processes.
            None of them takes a seat or duty (admission is withheld) until only one runs: stop one of them,
            or give it its own <code>node.id</code>.
          </p>
          <ul>
            {[n, ...(n.duplicates ?? [])].map((p) => (
              <li key={`${p.pid ?? ''}:${p.started_at}`}>{describeProcess(p)}</li>
            ))}
          </ul>
        </div>
      ))}
    </>
  );
}

/** What a posture other than `serve` means for the node's work (ops/dashboard.md, as `/health` says). */
const postureMeaning: Record<string, string> = {
  wait: 'an apply is under way; it serves the epoch it had meanwhile',
  shed: 'out of rotation: it lagged behind the active epoch past 45 s',
  isolated: 'the active revision failed here; it serves the epoch it last applied',
  stuck: 'out of rotation: it cannot apply its configuration',
};

/** The word itself, not a colour alone: a quiet "serving", or the posture (`stuck`, `shed`...) marked. */
function PostureCell(props: { posture: string | null }) {
  const { posture } = props;
  if (posture === null)
    return (
      <span class="muted" title="not announced (a node of an earlier release)">
        —
      </span>
    );
  if (posture === 'serve') return <span class="muted">serving</span>;
  return <Badge value={posture} title={postureMeaning[posture]} />;
}

/** The worst severity as a word, then the alarm names as the node lists them (critical first); else nothing. */
function AlarmsCell(props: { alarms: NodeAlarms | null }) {
  const { alarms } = props;
  if (alarms === null || alarms.count === 0) return null;
  const more = alarms.count - alarms.names.length;
  return (
    <>
      <Badge value={alarms.worst ?? 'warning'} title="its worst alarm" /> {alarms.count}{' '}
      {alarms.count === 1 ? 'alarm' : 'alarms'}: {alarms.names.join(', ')}
      {more > 0 ? `, and ${more} more` : ''}
    </>
  );
}

/**
 * Counts the `health` frames (the node's 5 s pulse): the renewal and expiry instants the room shows age on
 * their own clock, and no push tells of a renewal, so the room reads them again on the pulse.
 */
function usePulse(health: unknown): number {
  const [pulse, setPulse] = useState(0);
  useEffect(() => setPulse((p) => p + 1), [health]);
  return pulse;
}

export function FleetRoom() {
  const connection = useConnection();
  const live = useLiveSlice((s) => ({
    unread: s.snapshot === null,
    health: s.snapshot?.health,
    configTick: s.configTick,
    fleetTick: s.fleetTick,
    offline: s.link === 'offline',
  }));
  const health = live.health;
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [removals, setRemovals] = useState(0);
  const said = useRef<HTMLParagraphElement>(null);
  const pulse = usePulse(health);
  // At once on the node's `fleet` push (and the other frames that announce a fleet change, and after a
  // removal); on the health pulse for the renewal instants; and when the node stops answering, so what is
  // shown is marked as an earlier answer rather than read as current.
  const tick = `${live.fleetTick}:${live.configTick}:${removals}:${pulse}:${live.offline}`;
  const asked = useQuestion<Fleet>(connection.hasToken ? 'fleet' : null, {}, tick);
  const fleet = asked.data;
  // An earlier answer kept while the latest went unanswered is shown, marked so, not replaced by the error.
  const error =
    asked.error && !asked.stale
      ? asked.error.code === 'unknown_query'
        ? 'This node serves no fleet view.'
        : asked.error.message
      : null;
  const remove = async (node: string): Promise<void> => {
    const id = encodeURIComponent(node);
    try {
      // Without `force`: a node that still holds a live lease is refused (409 `member_live`), not cut.
      await connection.fetchJson(`/fleet/broker/remove/${id}?confirm=${id}`, { method: 'POST' });
      setOutcome({ text: `Node ${node} is removed.`, refused: false });
    } catch (err) {
      const refused = err as Error & { code?: string; hint?: string };
      setOutcome({
        text: `Node ${node} was not removed: ${refused.message}${refused.code && refused.code !== refused.message ? ` (${refused.code})` : ''}`,
        ...(refused.hint ? { hint: refused.hint } : {}),
        refused: true,
      });
    }
    setRemovals((n) => n + 1);
    // The row leaves with the record: the focus goes to what is said of it, not to the page.
    said.current?.focus();
  };
  // The fleet question is guarded anyway; without a snapshot this node's own figures are unknown, not zero.
  if (live.unread) return <Unread />;
  return (
    <div class="stack">
      <Card title="This node">
        <div class="stats">
          <Stat label="node" value={health?.node ?? '—'} />
          <Stat label="live nodes" value={health?.nodes ?? '—'} />
          <Stat label="posture" value={health ? <Badge value={health.posture} /> : '—'} />
          <Stat label="seats held" value={health?.seats.length ?? 0} />
        </div>
      </Card>
      <Card title="Nodes" wide>
        {!connection.hasToken ? (
          <p class="notice">The fleet view needs an operator token.</p>
        ) : error ? (
          <p class="notice error">
            {error}
            <Hint hint={asked.error?.hint} />
          </p>
        ) : !fleet ? (
          <p class="muted">Loading…</p>
        ) : (
          <>
            {asked.stale && asked.error ? (
              <p class="notice stale" role="status">
                Showing an earlier answer: the fleet was not answered ({asked.error.code})
                {asked.loading ? '; asking again.' : '.'}
              </p>
            ) : null}
            <Table
              caption={
                <>
                  Read{' '}
                  <time dateTime={fleet.read_at} title={time(fleet.read_at)}>
                    <Ago at={fleet.read_at} />
                  </time>{' '}
                  by {fleet.node}
                  {fleet.complete ? '' : ' (incomplete)'}
                </>
              }
              rows={fleet.nodes}
              rowKey={(n) => n.id}
              columns={[
                {
                  label: 'node',
                  cell: (n) =>
                    n.duplicates?.length ? (
                      <>
                        {n.id} <Badge value="duplicate" title="more than one process writes this node id" />
                      </>
                    ) : (
                      n.id
                    ),
                },
                { label: 'roles', cell: (n) => n.roles.join(', ') },
                { label: 'epoch', cell: (n) => n.applied_epoch, numeric: true },
                { label: 'posture', cell: (n) => <PostureCell posture={n.posture ?? null} /> },
                { label: 'alarms', cell: (n) => <AlarmsCell alarms={n.alarms ?? null} /> },
                { label: 'seats', cell: (n) => n.seats.length, numeric: true },
                { label: 'duties', cell: (n) => n.duties.join(', ') || '—' },
                { label: 'store', cell: (n) => n.store?.engine ?? '—' },
                { label: 'renewed', cell: (n) => <Ago at={n.renewed_at} /> },
              ]}
            />
            <Duplicates nodes={fleet.nodes} />
            <OutcomeStatus said={said} outcome={outcome} />
            <Table
              caption="Expired nodes (presence ran out; remove them here or with svc fleet remove)"
              rows={fleet.expired ?? []}
              rowKey={(r) => r.node}
              empty="No expired node: every node with a presence record is live."
              columns={[
                { label: 'node', cell: (r) => r.node },
                {
                  label: 'presence ran out',
                  cell: (r) => (
                    <time dateTime={r.expired_at} title={time(r.expired_at)}>
                      <Ago at={r.expired_at} />
                    </time>
                  ),
                },
                {
                  label: 'action',
                  cell: (r) => (
                    <ConfirmAction
                      label="Remove node"
                      question={`Remove node ${r.node}? Its presence and seats member records are deleted; a node still holding a lease is refused.`}
                      confirm={`Remove ${r.node}`}
                      act={() => remove(r.node)}
                    />
                  ),
                },
              ]}
            />
            <Table
              caption="Seat leases"
              rows={Object.entries(fleet.seats).map(([seat, lease]) => ({ seat, ...lease }))}
              rowKey={(r) => r.seat}
              empty="No seat is leased."
              columns={[
                { label: 'seat', cell: (r) => r.seat },
                { label: 'node', cell: (r) => r.node },
                { label: 'epoch', cell: (r) => r.epoch, numeric: true },
                { label: 'expires', cell: (r) => <Ago at={r.expires_at} /> },
              ]}
            />
          </>
        )}
      </Card>
    </div>
  );
}
