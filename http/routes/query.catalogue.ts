/**
 * What each `/query/{what}` question reads, for `GET /query`. Questions are registered by many subsystems
 * (and wrapped again for fleet-wide reads), so their parameters are described here in one table rather than
 * carried through every wrapper; a question may still declare `params` itself, which wins.
 * A test lists a running node's questions and fails on any this table does not describe. `ask` refuses a
 * parameter outside a question's entry, and a route adapting a question declares the same names
 * (`adaptedQuery`), so the table is also what each of them reads.
 */

/** Parameter name → what it does (defaults and ranges included). */
export type ParamDescriptions = Readonly<Record<string, string>>;

const page = {
  limit: 'rows per page (default 50, at most 400)',
  before_time: 'keyset cursor, with before_id: both halves of the previous page’s `next`',
  before_id: 'keyset cursor, with before_time',
} as const;
const seat = {
  agent_id: 'only this seat (handle, or the agent_id UUID an /agents row names)',
  seat: 'alias of agent_id',
} as const;
const id = { id: 'the seat’s handle' } as const;

export const questionParams: Readonly<Record<string, ParamDescriptions>> = {
  events: {
    limit: 'rows per page (default 100, at most 400)',
    before_time: page.before_time,
    before_id: page.before_id,
    category: 'only this event category',
    ...seat,
    type: 'only this event type (exact, e.g. TaskCreated); not in the spec: this node’s',
    feed_only: 'true: only the feed’s rows',
  },
  event: { event_id: 'the event id', id: 'alias of event_id (the same id, or leave one out)' },
  trace: { trace_id: 'every event of this trace' },
  event_series: {
    bucket: 'hour (default) or day',
    since_hours: 'window in hours, clamped to the event history',
    category: 'only this event category',
    feed_only: 'true: only the feed’s rows',
    ...seat,
  },
  turns: { ...page, ...seat },
  turn: { turn_id: 'the turn id' },
  phases: { turn_id: 'the phases of one turn (no other parameter then)', ...page, ...seat },
  config_audit: { limit: 'revisions, newest first (default 50, 1..500, clamped)' },
  config: {
    revision: 'a revision id (default the active one); the document comes redacted, as JSON and YAML',
  },
  config_diff: {
    from: 'a revision id or `active` (default the parent of `to`)',
    to: 'a revision id (default the active one)',
  },
  config_entities: { kind: 'roles, units, llm-providers or mcp-servers (default all four)' },
  mcp_servers: {},
  schedules: {},
  integrations: {},
  agents: {},
  agent: id,
  agent_activity: { days: 'days back from today in the company timezone (default 7, 1..30)' },
  memory: id,
  episode: { ...id, episode: 'the episode id' },
  tokens_breakdown: {
    since_days: 'window in days (default 7, 1..30)',
    agent_role: 'only this seat (display name, handle, or the agent_id UUID an /agents row names)',
    recent_turns: 'recent turns listed (default 50, 0..500)',
  },
  tokens_series: {
    bucket: 'day (default) or week',
    band: 'phase (default), model or agent',
    buckets: 'number of buckets (day: default 14, 1..90; week: default 12, 1..13)',
    agent_role: 'only this seat (display name, handle, or the agent_id UUID an /agents row names)',
  },
  budgets: {},
  org: {},
  tools: {},
  sandbox_runs: {},
  fleet: {},
  setup_integrations: {},
  native_backends: {},
  work_projects: {
    q: 'words of a project key or name',
    unit: 'only projects of this unit',
    archived: 'false (default), only or true',
    sort: 'key (default), name, unit, a status group, last_change or target; `-` first descends',
    limit: 'rows (default and at most 200)',
  },
  work_items: {
    project: 'only this project key',
    status: 'comma list of statuses',
    group: 'comma list of status groups (todo, active, done, closed)',
    assignee: 'only items assigned to this handle',
    type: 'only this task type',
    priority: 'only this priority',
    label: 'only items with this label',
    q: 'words in the key, title or description',
    limit: 'rows per page (default 50, at most 200)',
    cursor: 'the previous answer’s `next`',
  },
  work_item: { id: 'an item key (ENG-12) or id: description, thread, history' },
  containers: {},
  pages: {
    container: 'only this container key',
    parent: 'a page id or CONTAINER/Title, or root for the top level',
    q: 'search words (best first)',
    limit: 'rows (default 50, 1..200)',
    cursor: 'the previous answer’s `next_cursor`',
  },
  page: { id: 'a page id or CONTAINER/Title: body, comments, breadcrumb, children' },
};

/**
 * The query a route adapting question `what` declares (`RouteDef.query`): the names the question reads but
 * those its path fills (`/agents/:id` fills `id`). A question the table does not describe throws, at the
 * route table's making: a route adapting it could not say what it reads.
 */
export function adaptedQuery(what: string, fromPath: readonly string[] = []): readonly string[] {
  const described = Object.hasOwn(questionParams, what) ? questionParams[what] : undefined;
  if (described === undefined) throw new Error(`question ${what} has no entry in query.catalogue.ts`);
  return Object.keys(described).filter((name) => !fromPath.includes(name));
}
