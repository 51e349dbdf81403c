/**
 * Board: the native tracker's projects (the `work_projects` question) and one project's items in columns by
 * status group (`work_items`). Read-only: writes go through the API, the CLI and the operator tools. It
 * asks again when a task event arrives on the stream, and every 30 s for moves that raise none.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { useLiveSlice, useQuestion } from '../live/context.js';
import { href, type Route } from '../router.js';
import { Answer, Badge, Card, FIRST_ROWS, Hint, ShowAll, Table } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';
import { useFocusKept } from '../ui/keep-focus.js';

export interface WorkRow {
  id: string;
  key: string;
  project: string;
  title: string;
  type: string;
  status: string;
  group: string;
  priority: string;
  assignees: string[];
  labels: string[];
  comments: number;
  updated_at: string;
}
interface ProjectRow {
  key: string;
  name: string;
  unit?: string | null;
  archived?: boolean;
  last_change: string | null;
  task_counts: Record<string, number>;
}

const groups = [
  ['todo', 'To do'],
  ['active', 'Active'],
  ['done', 'Done'],
  ['closed', 'Closed'],
] as const;
const taskEvents = new Set(['TaskCreated', 'TaskAssigned', 'TaskCompleted', 'TaskDelegated']);
const REASK_MS = 30_000;
/** The most items one answer carries (the route's cap). */
const ITEMS_MAX = 200;

/** Moves when a task event arrives on the stream, and on a slow beat for changes that raise none. */
export function useWorkTick(): string {
  const newest = useLiveSlice((s) => s.snapshot?.events.find((e) => taskEvents.has(e.type))?.id ?? '');
  const [beat, setBeat] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setBeat((b) => b + 1), REASK_MS);
    return () => window.clearInterval(timer);
  }, []);
  return `${newest}:${beat}`;
}

type Backend = 'tracker' | 'knowledge';
const settings: Record<Backend, { what: string; setting: string }> = {
  tracker: { what: 'work tracker', setting: 'tracker.backend' },
  knowledge: { what: 'knowledge base', setting: 'knowledge.backend' },
};

/**
 * Whether this node runs the backend natively (`native_backends`), asked before any of its questions so
 * a node without it is told plainly rather than refused: null while the answer is on its way.
 */
export function useNative(backend: Backend): { native: boolean | null; notice: JSX.Element | null } {
  const asked = useQuestion<Record<Backend, string | null>>('native_backends');
  if (asked.error?.kind === 'unauthorized')
    return {
      native: false,
      notice: <p class="notice">This needs an operator token: enter one at the top of the page.</p>,
    };
  if (asked.error)
    return {
      native: false,
      notice: (
        <p class="notice error">
          The backends were not read: {asked.error.message}
          <Hint hint={asked.error.hint} />
        </p>
      ),
    };
  if (asked.data === null)
    return {
      native: null,
      notice: (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      ),
    };
  const configured = asked.data[backend];
  if (configured === 'native') return { native: true, notice: null };
  const { what, setting } = settings[backend];
  return {
    native: false,
    notice: (
      <p class="notice">
        This node has no native {what}: <code>{setting}</code> is not <code>native</code> in its configuration
        file (it is {configured === null ? 'unset' : <code>{configured}</code>}).
      </p>
    ),
  };
}

function ItemCard(props: { item: WorkRow }) {
  const i = props.item;
  return (
    <li class="work-card">
      <a href={href('work', i.key)}>
        <span class="work-key">{i.key}</span> {i.title}
      </a>
      <div class="work-meta">
        <Badge value={i.status} />
        {i.priority !== 'none' ? <Badge value={i.priority} title="priority" /> : null}
        <span class="muted">{i.assignees.length > 0 ? i.assignees.join(', ') : 'unassigned'}</span>
      </div>
    </li>
  );
}

/** One status group's cards: a screenful, the rest on demand (a column may hold up to 200). */
function Column(props: { label: string; items: readonly WorkRow[] }) {
  const [all, setAll] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // A live update that leaves a screenful or less takes the button away: its focus goes to the heading.
  useFocusKept(toggle, () => {
    if (heading.current !== null && !heading.current.hasAttribute('tabindex')) heading.current.tabIndex = -1;
    return heading.current;
  });
  const { items } = props;
  const cut = items.length > FIRST_ROWS;
  return (
    <section class="board-column" aria-label={props.label}>
      <h3 ref={heading}>
        {props.label} <span class="muted">{items.length}</span>
      </h3>
      {cut ? (
        <ShowAll
          count={items.length}
          many="items"
          all={all}
          onToggle={() => setAll(!all)}
          buttonRef={toggle}
        />
      ) : null}
      {items.length === 0 ? (
        <p class="muted">Nothing here.</p>
      ) : (
        <ul class="work-cards">
          {(cut && !all ? items.slice(0, FIRST_ROWS) : items).map((i) => (
            <ItemCard key={i.id} item={i} />
          ))}
        </ul>
      )}
    </section>
  );
}

function Columns(props: { project: string; tick: string }) {
  const asked = useQuestion<{ items: WorkRow[]; total: number }>(
    'work_items',
    { project: props.project, limit: ITEMS_MAX },
    props.tick,
  );
  return (
    <Answer asked={asked} what="work_items">
      {(d) => (
        <>
          {d.total > d.items.length ? (
            <p class="muted">
              The newest {d.items.length} of {d.total} items.
            </p>
          ) : null}
          <div class="board">
            {groups.map(([group, label]) => {
              const items = d.items.filter((i) => i.group === group);
              return <Column key={group} label={label} items={items} />;
            })}
          </div>
        </>
      )}
    </Answer>
  );
}

export function BoardRoom(props: { route: Route }) {
  const tick = useWorkTick();
  const project = props.route.rest[0] ?? '';
  const { native, notice } = useNative('tracker');
  const asked = useQuestion<{ projects: ProjectRow[] }>(native ? 'work_projects' : null, {}, tick);
  if (!native) return notice;
  // A key no project has is not found (GET /work/projects/{key} answers 404), not an empty board.
  const unknown =
    project !== '' && asked.data !== null && !asked.data.projects.some((p) => p.key === project);
  return (
    <div class="stack">
      <Card title="Projects" wide>
        <Answer asked={asked} what="work_projects">
          {(d) => (
            <Table
              caption="Projects of the active document"
              rows={d.projects}
              rowKey={(p) => p.key}
              empty="No unit declares a project (units[].integrations.work.project)."
              columns={[
                {
                  label: 'project',
                  cell: (p) => (
                    <a href={href('board', p.key)} aria-current={p.key === project ? 'page' : undefined}>
                      {p.key}
                    </a>
                  ),
                },
                { label: 'name', cell: (p) => p.name },
                ...groups.map(([group, label]) => ({
                  label,
                  cell: (p: ProjectRow) => p.task_counts[group] ?? 0,
                  numeric: true,
                })),
                { label: 'last change', cell: (p) => <Ago at={p.last_change} /> },
              ]}
            />
          )}
        </Answer>
      </Card>
      {unknown ? (
        <p class="notice" role="alert">
          No project {project} on this node (not_found).
        </p>
      ) : project !== '' ? (
        <Card title={`Board ${project}`} wide>
          <Columns project={project} tick={tick} />
        </Card>
      ) : (
        <p class="muted">Choose a project to see its board.</p>
      )}
    </div>
  );
}
