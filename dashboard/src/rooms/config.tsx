/**
 * Config: the revisions (`config_audit`), a diff between any two (`config_diff`), the active document as
 * redacted YAML (`config`) and the entity views (`config_entities`). All four questions are guarded.
 */
import { useState } from 'preact/hooks';
import { useConnection, useLiveSlice, useQuestion } from '../live/context.js';
import { json, time } from '../ui/format.js';
import { Answer, Badge, Card, Table } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

interface RevisionMeta {
  revision_id: string;
  parent_revision_id: string | null;
  created_at: string;
  created_by: string;
  source: string;
  summary: string;
  is_active: boolean;
  epoch?: number;
}
interface ActiveConfig extends RevisionMeta {
  yaml: string;
}
interface Diff {
  from: string;
  to: string;
  changes: Array<{ path: string; kind: string; from?: unknown; to?: unknown }>;
  changes_total: number;
}
interface Entities {
  revision_id: string;
  entities: Array<{ kind: string; id: string; path: string; value: unknown }>;
}

const short = (id: string): string => id.slice(0, 8);

/** The redaction marker a secret value reads as; the diff puts it on both sides of a changed secret. */
const isMarker = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.keys(value).length === 2 &&
  (value as Record<string, unknown>)['encrypted'] === true &&
  (value as Record<string, unknown>)['key_id'] === null;

const shown = (value: unknown): string => (isMarker(value) ? 'secret value (redacted)' : json(value));

function ChangeView(props: { change: Diff['changes'][number] }) {
  const c = props.change;
  // Two markers are not "the same value": the values behind them differ, and the marker hides how.
  const rotated = c.kind === 'changed' && isMarker(c.from) && isMarker(c.to);
  return (
    <li class={`change ${c.kind}`}>
      <Badge value={c.kind} /> <code>{c.path}</code>
      {rotated ? (
        <p class="muted">The secret value changed; both values stay redacted.</p>
      ) : (
        <>
          {c.kind !== 'added' ? <pre class="from">{shown(c.from)}</pre> : null}
          {c.kind !== 'removed' ? <pre class="to">{shown(c.to)}</pre> : null}
        </>
      )}
    </li>
  );
}

function DiffView(props: { revisions: RevisionMeta[]; tick: number }) {
  const newest = props.revisions[0]?.revision_id ?? '';
  const before = props.revisions[1]?.revision_id ?? newest;
  const [to, setTo] = useState(newest);
  const [from, setFrom] = useState(before);
  // A new revision resets the pair to it and the one before, in place: the pickers stay, and so does the
  // focus on one (drawn anew, they dropped it to the page).
  const [paired, setPaired] = useState(newest);
  if (paired !== newest) {
    setPaired(newest);
    setTo(newest);
    setFrom(before);
  }
  const diff = useQuestion<Diff>(to && from ? 'config_diff' : null, { from, to }, props.tick);
  const option = (r: RevisionMeta) => (
    <option key={r.revision_id} value={r.revision_id}>
      {short(r.revision_id)} · {r.summary || r.source} {r.is_active ? '(active)' : ''}
    </option>
  );
  return (
    <>
      <div class="filters">
        <label>
          From
          <select value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
            {props.revisions.map(option)}
          </select>
        </label>
        <label>
          To
          <select value={to} onChange={(e) => setTo(e.currentTarget.value)}>
            {props.revisions.map(option)}
          </select>
        </label>
      </div>
      <Answer asked={diff} what="config_diff">
        {(d) =>
          d.changes.length === 0 ? (
            <p class="muted">The two documents are the same, secret values included.</p>
          ) : (
            <>
              <p class="diff-count">
                {d.changes_total === 1 ? '1 change' : `${d.changes_total} changes`}
                {/* The node lists at most its first 500: the rest are counted, not lost from view. */}
                {d.changes.length < d.changes_total
                  ? `; the first ${d.changes.length} are shown, ${d.changes_total - d.changes.length} more are not`
                  : ''}
              </p>
              <ul class="diff" aria-label={`${d.changes_total} changes`}>
                {d.changes.map((c) => (
                  <ChangeView key={c.path} change={c} />
                ))}
              </ul>
            </>
          )
        }
      </Answer>
    </>
  );
}

function EntityViews(props: { tick: number }) {
  const [kind, setKind] = useState('roles');
  const asked = useQuestion<Entities>('config_entities', { kind }, props.tick);
  return (
    <>
      <label>
        Kind
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
          <option value="roles">seats</option>
          <option value="units">units</option>
          <option value="llm-providers">LLM providers</option>
          <option value="mcp-servers">tool servers</option>
        </select>
      </label>
      <Answer asked={asked} what="config_entities">
        {(e) => (
          <ul class="entities">
            {e.entities.map((entity) => (
              <li key={`${entity.kind}/${entity.id}`}>
                <details>
                  <summary>
                    <code>{entity.id}</code> <span class="muted">{entity.path}</span>
                  </summary>
                  <pre>{json(entity.value)}</pre>
                </details>
              </li>
            ))}
          </ul>
        )}
      </Answer>
    </>
  );
}

export function ConfigRoom() {
  const connection = useConnection();
  const tick = useLiveSlice((s) => s.configTick);
  const audit = useQuestion<RevisionMeta[]>(connection.hasToken ? 'config_audit' : null, { limit: 50 }, tick);
  const active = useQuestion<ActiveConfig>(connection.hasToken ? 'config' : null, {}, tick);
  if (!connection.hasToken)
    return (
      <p class="notice">The configuration is guarded: enter an operator token at the top of the page.</p>
    );
  return (
    <div class="stack">
      <Card title="Revisions" wide>
        <Answer asked={audit} what="config_audit">
          {(rows) => (
            <Table
              caption="Newest first"
              rows={rows}
              rowKey={(r) => r.revision_id}
              empty="No revision stored yet."
              columns={[
                { label: 'revision', cell: (r) => <code title={r.revision_id}>{short(r.revision_id)}</code> },
                {
                  label: 'when',
                  cell: (r) => (
                    <span title={time(r.created_at)}>
                      <Ago at={r.created_at} />
                    </span>
                  ),
                },
                { label: 'by', cell: (r) => r.created_by },
                { label: 'source', cell: (r) => r.source },
                {
                  label: 'summary',
                  cell: (r) => (
                    <span class="revision-summary">{r.summary.trim() === '' ? '—' : r.summary}</span>
                  ),
                },
                { label: 'state', cell: (r) => (r.is_active ? <Badge value="active" /> : '') },
              ]}
            />
          )}
        </Answer>
      </Card>
      <Card title="Diff" wide>
        <Answer asked={audit} what="config_audit">
          {(rows) =>
            rows.length < 1 ? (
              <p class="muted">Nothing to compare.</p>
            ) : (
              <DiffView revisions={rows} tick={tick} />
            )
          }
        </Answer>
      </Card>
      <Card title="Active document" wide>
        <Answer asked={active} what="config">
          {(c) => (
            <>
              <p class="muted">
                revision <code>{c.revision_id}</code> · secrets are shown as markers
              </p>
              <pre class="yaml" aria-label="Active document as YAML">
                {c.yaml}
              </pre>
            </>
          )}
        </Answer>
      </Card>
      <Card title="Entities" wide>
        <EntityViews tick={tick} />
      </Card>
    </div>
  );
}
