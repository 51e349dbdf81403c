/** A seat's memory as `/agents/{id}/memory` reads it: notes, episodes, people and skills. */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useQuestion } from '../live/context.js';
import { Answer, Badge, ShowAll } from '../ui/parts.js';
import { Ago, usePassed } from '../ui/ago.js';
import { time } from '../ui/format.js';
import { cardHeading, useFocusKept } from '../ui/keep-focus.js';

interface Note {
  id: string;
  content: string;
  ttl_until?: string | null;
  expired?: boolean;
}

interface Memory {
  personal_memories?: { long?: Note[]; short?: Note[] };
  episodes?: Array<{ id: string; task_summary?: string; review_outcome?: string; ended_at?: string }>;
  counterparty_profiles?: Array<{
    subject_label?: string;
    subject_name?: string;
    interaction_count?: number;
    last_updated_at?: string;
  }>;
  synthesized_skills?: Array<{ id: string; name: string; description?: string; updated_at?: string }>;
}

/**
 * Long notes are kept; short ones hold until `ttl_until`, and one past it stays stored and listed, `expired`
 * on the node's clock (ops/turn-engine.md "Expiry"): marked, and after the notes still current. One that
 * reaches its `ttl_until` while the page is open is marked so then, by the page's clock, not left reading
 * "expires 5s ago" until the memory is asked again.
 */
function Notes(props: { long: Note[]; short: Note[] }) {
  const past = usePassed(props.short.map((n) => n.ttl_until));
  const expired = (n: Note): boolean => n.expired === true || past(n.ttl_until);
  const short = [...props.short.filter((n) => !expired(n)), ...props.short.filter(expired)];
  if (props.long.length + short.length === 0)
    return (
      <>
        <h3>Notes</h3>
        <p class="muted">No notes yet: the seat keeps them with memory_remember.</p>
      </>
    );
  return (
    <>
      <h3>Notes</h3>
      <ul>
        {props.long.map((n) => (
          <li key={n.id} data-note={n.id}>
            {n.content} <span class="muted">long-term</span>
          </li>
        ))}
        {short.map((n) => (
          <li key={n.id} data-note={n.id}>
            {n.content} <span class="muted">short-term</span> {expired(n) ? <Badge value="expired" /> : null}
            {n.ttl_until ? (
              <>
                {' '}
                <span class="muted" title={time(n.ttl_until)}>
                  {expired(n) ? '' : 'expires '}
                  <Ago at={n.ttl_until} />
                </span>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Rows of each memory list shown before the rest are asked for: a glance, not one row per person met. */
const FIRST_ROWS = 10;
/** The most episodes the node lists (spec "Limits": episodes in memory view); it may keep more. */
const EPISODES_LISTED = 50;

/**
 * One of the memory's lists, headed with its count: the first 10 rows in `order`, with how many of how many
 * and a Show all button when there are more (a seat of long standing has met hundreds of people).
 */
function Cut<T>(props: {
  title: string;
  /** What the rows are, plural ("episodes"): names the Show all button. */
  many: string;
  rows: readonly T[];
  /** The order, as in "All 300 shown, newest first". */
  order: string;
  /** The first rows as picked from all of them ("newest 10", "10 most recently updated"). */
  first: (shown: number) => string;
  /** What the node leaves out, said after the count ("; the node lists at most 50."). */
  limit?: string;
  none: string;
  row: (row: T, index: number) => ComponentChildren;
}) {
  const [all, setAll] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // An answer that leaves few enough takes the button away: its focus goes to the card's heading.
  useFocusKept(toggle, () => cardHeading(list.current));
  const { rows } = props;
  const cut = rows.length > FIRST_ROWS;
  const shown = cut && !all ? rows.slice(0, FIRST_ROWS) : rows;
  return (
    <>
      <h3>
        {props.title} ({rows.length})
      </h3>
      {cut ? (
        <p class="muted">
          {all
            ? `All ${rows.length} shown, ${props.order} first`
            : `The ${props.first(shown.length)} of ${rows.length}`}
          {props.limit ?? '.'}{' '}
          <ShowAll
            count={rows.length}
            many={props.many}
            all={all}
            onToggle={() => setAll(!all)}
            buttonRef={toggle}
          />
        </p>
      ) : null}
      {rows.length === 0 ? (
        <p class="muted">{props.none}</p>
      ) : (
        <ul ref={list}>{shown.map((row, i) => props.row(row, i))}</ul>
      )}
    </>
  );
}

/** Most recently `at` first; a row without one last, in the node's order. */
function newestBy<T>(rows: readonly T[] | undefined, at: (row: T) => string | undefined): T[] {
  const ms = (row: T): number => {
    const t = Date.parse(at(row) ?? '');
    return Number.isNaN(t) ? -Infinity : t;
  };
  return [...(rows ?? [])].sort((a, b) => ms(b) - ms(a));
}

export function MemoryView(props: { handle: string; again: unknown }) {
  const asked = useQuestion<Memory>('memory', { id: props.handle }, props.again);
  return (
    <Answer asked={asked} what="memory">
      {(m) => {
        return (
          <div class="memory">
            <Notes long={m.personal_memories?.long ?? []} short={m.personal_memories?.short ?? []} />
            <Cut
              title="Episodes"
              many="episodes"
              rows={m.episodes ?? []}
              order="newest"
              first={(n) => `newest ${n}`}
              limit={
                (m.episodes?.length ?? 0) >= EPISODES_LISTED
                  ? `; the node lists at most ${EPISODES_LISTED}.`
                  : undefined
              }
              none="No episodes yet: one is kept as each turn ends."
              row={(e) => (
                <li key={e.id} data-episode={e.id}>
                  {e.task_summary ?? e.id}{' '}
                  <span class="muted">
                    {e.review_outcome ?? ''} <Ago at={e.ended_at} />
                  </span>
                </li>
              )}
            />
            <Cut
              title="People"
              many="people"
              rows={newestBy(m.counterparty_profiles, (p) => p.last_updated_at)}
              order="most recently updated"
              first={(n) => `${n} most recently updated`}
              none="No people yet: the seat profiles those it deals with."
              row={(p, i) => (
                <li key={i} data-person={p.subject_label ?? p.subject_name ?? ''}>
                  {p.subject_name ?? p.subject_label}{' '}
                  <span class="muted">{p.interaction_count ?? 0} interactions</span>
                </li>
              )}
            />
            <Cut
              title="Skills"
              many="skills"
              rows={newestBy(m.synthesized_skills, (s) => s.updated_at)}
              order="most recently updated"
              first={(n) => `${n} most recently updated`}
              none="No skills yet: the seat synthesizes them from its turns."
              row={(s) => (
                <li key={s.id} data-skill={s.id}>
                  {s.name} <span class="muted">{s.description}</span>
                </li>
              )}
            />
          </div>
        );
      }}
    </Answer>
  );
}
