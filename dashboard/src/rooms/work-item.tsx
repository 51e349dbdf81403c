/** One work item (`#/work/{KEY}`, the `work_item` question): its fields, description, thread and history. */
import { useQuestion } from '../live/context.js';
import { href, type Route } from '../router.js';
import { json, time } from '../ui/format.js';
import { Markdown } from '../ui/markdown.js';
import { Answer, Badge, Card, Stat } from '../ui/parts.js';
import { useNative, useWorkTick, type WorkRow } from './board.js';
import { Ago } from '../ui/ago.js';

interface WorkDetail extends WorkRow {
  description: string;
  watchers: string[];
  due_date: string | null;
  created_at: string;
  created_by: string;
  thread: Array<{ id: string; author: string; body: string; at: string }>;
  history: Array<{
    seq: number;
    at: string;
    actor: string;
    kind: string;
    fields: unknown;
    turn_id: string | null;
  }>;
}

const CHANGE_CHARS = 80;
const brief = (value: unknown): string => {
  const text = json(value ?? null);
  return text.length > CHANGE_CHARS ? `${text.slice(0, CHANGE_CHARS - 1)}…` : text;
};

const empty = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && Object.keys(value).length === 0);

/** A history row's field changes, compactly (`status: "todo" → "done"`), leaving out empty → empty. */
function changes(fields: unknown): string {
  if (typeof fields !== 'object' || fields === null) return '';
  return Object.entries(fields as Record<string, unknown>)
    .filter(([, delta]) => {
      if (typeof delta !== 'object' || delta === null || !('to' in delta)) return true;
      const d = delta as { from?: unknown; to?: unknown };
      return !(empty(d.from) && empty(d.to));
    })
    .map(([name, delta]) => {
      if (typeof delta === 'object' && delta !== null && 'to' in delta) {
        const d = delta as { from?: unknown; to?: unknown };
        return `${name}: ${brief(d.from)} → ${brief(d.to)}`;
      }
      return `${name}: ${brief(delta)}`;
    })
    .join('; ');
}

export function WorkItemRoom(props: { route: Route }) {
  const key = props.route.rest[0] ?? '';
  const tick = useWorkTick();
  const { native, notice } = useNative('tracker');
  const asked = useQuestion<WorkDetail>(key === '' || !native ? null : 'work_item', { id: key }, tick);
  if (key === '')
    return (
      <p class="muted">
        Open an item from the <a href={href('board')}>board</a>.
      </p>
    );
  if (!native) return notice;
  return (
    <Answer asked={asked} what="work_item">
      {(item) => (
        <div class="stack">
          <nav aria-label="Breadcrumb" class="breadcrumb">
            <a href={href('board')}>Board</a> / <a href={href('board', item.project)}>{item.project}</a> /{' '}
            <span aria-current="page">{item.key}</span>
          </nav>
          <Card title={`${item.key} ${item.title}`} wide>
            <div class="stats">
              <Stat label="status" value={<Badge value={item.status} />} />
              <Stat label="priority" value={item.priority} />
              <Stat label="type" value={item.type} />
              <Stat label="assignees" value={item.assignees.join(', ') || '—'} />
              <Stat label="due" value={item.due_date ?? '—'} />
              <Stat
                label="created"
                value={
                  <span title={time(item.created_at)}>
                    <Ago at={item.created_at} />
                  </span>
                }
              />
              <Stat label="by" value={item.created_by} />
            </div>
            <h3>Description</h3>
            {item.description.trim() === '' ? (
              <p class="muted">No description.</p>
            ) : (
              <Markdown text={item.description} />
            )}
          </Card>
          <Card title="Thread" wide>
            {item.thread.length === 0 ? (
              <p class="muted">No comment yet.</p>
            ) : (
              <ol class="thread" aria-label="Comments, oldest first">
                {item.thread.map((c) => (
                  <li key={c.id}>
                    <div class="muted">
                      {c.author} ·{' '}
                      <time dateTime={c.at}>
                        <Ago at={c.at} />
                      </time>
                    </div>
                    <Markdown text={c.body} />
                  </li>
                ))}
              </ol>
            )}
          </Card>
          <Card title="History" wide>
            <ol class="history" aria-label="Changes, oldest first">
              {item.history.map((h) => (
                <li key={h.seq}>
                  <time dateTime={h.at} title={time(h.at)}>
                    <Ago at={h.at} />
                  </time>{' '}
                  <code>{h.kind}</code> by {h.actor} <span class="muted">{changes(h.fields)}</span>
                </li>
              ))}
            </ol>
          </Card>
        </div>
      )}
    </Answer>
  );
}
