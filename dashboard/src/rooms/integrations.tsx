/** Integrations: inbound surfaces, whether their secret is present, arrivals, and setup requirements. */
import { useEffect, useState } from 'preact/hooks';
import { useConnection, useLiveSlice, useQuestion } from '../live/context.js';
import { Answer, Badge, Card, Hint, Table } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

interface Surface {
  surface: string;
  path: string;
  scheme: string;
  configured: boolean;
  secret_present: boolean;
  listener: string;
  arrivals: { accepted: number; duplicates: number; refused: number; last_accepted_at: string | null };
}
interface Requirement {
  field: string;
  label: string;
  kind: string;
  required: boolean;
  present: boolean;
  blocks?: string | null;
  /** Where the value comes from; null when a value is set but resolves to nothing (an unset `${VAR}`). */
  resolved?: string | null;
  /** Names it references that the store holds sealed under a key this node's keyring lacks. */
  unreadable?: Array<{ name: string; key_id: string }>;
}
interface SetupState {
  key: string;
  configured: boolean;
  enabled: boolean;
  satisfied: boolean;
  requirements: Requirement[];
}

/**
 * A set value that resolves to nothing (an unset `${VAR}`) is neither present nor missing; one the store
 * holds under a key this node lacks is there but cannot be opened: the operator restores the key or enters it again.
 */
function RequirementBadge(props: { requirement: Requirement }) {
  const r = props.requirement;
  if (!r.present) return <Badge value="missing" />;
  const unreadable = r.unreadable ?? [];
  if (unreadable.length > 0)
    return (
      <>
        <Badge value="unreadable" />{' '}
        <span class="muted">
          sealed under key {unreadable.map((u) => u.key_id).join(', ')}, which this node's keyring lacks
        </span>
      </>
    );
  if (r.resolved === null)
    return (
      <>
        <Badge value="unresolved" /> <span class="muted">set, but its reference resolves to nothing</span>
      </>
    );
  return <Badge value="present" title={r.resolved ? `from the ${r.resolved}` : undefined} />;
}

/** Refused deliveries raise no event: the arrival counts are also read on this beat while the room is open. */
const ARRIVALS_MS = 10_000;

function Setup() {
  const connection = useConnection();
  const configTick = useLiveSlice((s) => s.configTick);
  const asked = useQuestion<{ integrations: SetupState[] }>(
    connection.hasToken ? 'setup_integrations' : null,
    {},
    configTick,
  );
  const setup = asked.data;
  const error = asked.error?.message ?? null;
  if (!connection.hasToken) return <p class="notice">Setup requirements need an operator token.</p>;
  if (error)
    return (
      <p class="notice error">
        Setup requirements were not read: {error}
        <Hint hint={asked.error?.hint} />
      </p>
    );
  if (!setup) return <p class="muted">Loading…</p>;
  return (
    <>
      {setup.integrations.map((i) => (
        <details key={i.key}>
          <summary>
            {i.key}{' '}
            <Badge value={i.satisfied ? 'satisfied' : i.configured ? 'unsatisfied' : 'not configured'} />
          </summary>
          <ul>
            {i.requirements.map((r) => (
              <li key={r.field}>
                {r.label}{' '}
                <span class="muted">
                  ({r.kind}
                  {r.required ? ', required' : ''})
                </span>{' '}
                <RequirementBadge requirement={r} />
              </li>
            ))}
          </ul>
        </details>
      ))}
    </>
  );
}

export function Integrations() {
  const configTick = useLiveSlice((s) => s.configTick);
  const [beat, setBeat] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setBeat((b) => b + 1), ARRIVALS_MS);
    return () => window.clearInterval(timer);
  }, []);
  // Not on every event: a burst of deliveries would be a burst of questions. The beat and configuration.
  const asked = useQuestion<{ surfaces: Surface[] }>('integrations', {}, `${configTick}:${beat}`);
  return (
    <div class="stack">
      <Card title="Inbound surfaces" wide>
        <Answer asked={asked} what="integrations">
          {(d) => (
            <Table
              caption="Webhook receivers"
              rows={d.surfaces}
              rowKey={(r) => r.path}
              columns={[
                { label: 'surface', cell: (r) => r.surface },
                { label: 'path', cell: (r) => <code>{r.path}</code> },
                { label: 'configured', cell: (r) => (r.configured ? 'yes' : 'no') },
                { label: 'secret', cell: (r) => <Badge value={r.secret_present ? 'present' : 'missing'} /> },
                { label: 'accepted', cell: (r) => r.arrivals.accepted, numeric: true },
                { label: 'refused', cell: (r) => r.arrivals.refused, numeric: true },
                { label: 'last', cell: (r) => <Ago at={r.arrivals.last_accepted_at} /> },
              ]}
            />
          )}
        </Answer>
      </Card>
      <Card title="Setup requirements" wide>
        <Setup />
      </Card>
    </div>
  );
}
