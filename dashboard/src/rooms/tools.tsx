/** Tools: the catalogue seats may call, and the tool servers' state on every node (guarded). */
import { useConnection, useLiveSlice, useQuestion } from '../live/context.js';
import { time } from '../ui/format.js';
import { Answer, Badge, Card, Table, Unread } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

interface ServerState {
  server: string;
  seat: string | null;
  transport: string;
  state: string;
  tools_served: number;
  started_at: string | null;
  restarts: number;
  /** Error texts come with the instance's env and header values removed by the node. */
  last_failure: { at: string; error: string } | null;
  next_restart_at?: string | null;
}

/** Why a server is down and when it is tried again: `backoff` alone says neither. */
function Failure(props: { server: ServerState }) {
  const { last_failure: failure, next_restart_at: next } = props.server;
  if (!failure && !next) return <>—</>;
  return (
    <>
      {failure ? (
        <span class="failure">
          {failure.error}{' '}
          <span class="muted" title={time(failure.at)}>
            <Ago at={failure.at} />
          </span>
        </span>
      ) : null}
      {next ? (
        <span class="muted">
          {' '}
          · next try <Ago at={next} />
        </span>
      ) : null}
    </>
  );
}

export function Tools() {
  const live = useLiveSlice((s) => ({
    configTick: s.configTick,
    tools: s.snapshot === null ? null : s.snapshot.tools,
  }));
  const connection = useConnection();
  const servers = useQuestion<{ nodes: Array<{ node: string; servers: ServerState[] }> }>(
    connection.hasToken ? 'mcp_servers' : null,
    {},
    live.configTick,
  );
  // Without a snapshot (reads refused, or not yet read) there is no catalogue to count.
  if (live.tools === null) return <Unread />;
  const tools = live.tools;
  return (
    <div class="stack">
      <Card title={`Catalogue (${tools.length})`} wide>
        <Table
          caption="Tools seats may call"
          rows={tools}
          rowKey={(t) => `${t.source}/${t.name}`}
          empty="No tools."
          columns={[
            { label: 'tool', cell: (t) => <code>{t.name}</code> },
            { label: 'source', cell: (t) => t.source },
            { label: 'delivers', cell: (t) => t.delivers ?? '—' },
            { label: 'description', cell: (t) => (t.description?.trim() ? t.description : '—') },
          ]}
        />
      </Card>
      <Card title="Tool servers" wide>
        {!connection.hasToken ? (
          <p class="notice">Tool-server state needs an operator token.</p>
        ) : (
          <Answer asked={servers} what="mcp_servers">
            {(d) => (
              <Table
                caption="Per node"
                rows={d.nodes.flatMap((n) => n.servers.map((s) => ({ ...s, node: n.node })))}
                rowKey={(r) => `${r.node}/${r.server}/${r.seat ?? ''}`}
                empty="No tool servers."
                columns={[
                  { label: 'node', cell: (r) => r.node },
                  { label: 'server', cell: (r) => r.server },
                  { label: 'seat', cell: (r) => r.seat ?? 'shared' },
                  { label: 'state', cell: (r) => <Badge value={r.state} /> },
                  { label: 'tools', cell: (r) => r.tools_served, numeric: true },
                  { label: 'restarts', cell: (r) => r.restarts, numeric: true },
                  { label: 'since', cell: (r) => <Ago at={r.started_at} /> },
                  { label: 'last failure', cell: (r) => <Failure server={r} /> },
                ]}
              />
            )}
          </Answer>
        )}
      </Card>
    </div>
  );
}
