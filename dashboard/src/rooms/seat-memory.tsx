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
  }>;
  synthesized_skills?: Array<{ id: string; name: string; description?: string }>;
}

/** A section's list, or in words that it is empty: a list without items is announced as one, and says nothing. */
function Listed(props: { items: readonly unknown[] | undefined; none: string; children: ComponentChildren }) {
  if (!props.items?.length) return <p class="muted">{props.none}</p>;
  return <ul>{props.children}</ul>;
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

/** Episodes listed before the rest are asked for: the newest, a glance. */
const FIRST_EPISODES = 10;
/** The most the node lists (spec "Limits": episodes in memory view); it may keep more. */
const EPISODES_LISTED = 50;

function Episodes(props: { episodes: NonNullable<Memory['episodes']> }) {
  const [all, setAll] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // An answer that leaves few enough takes the button away: its focus goes to the card's heading.
  useFocusKept(toggle, () => cardHeading(list.current));
  const { episodes } = props;
  const cut = episodes.length > FIRST_EPISODES;
  const shown = cut && !all ? episodes.slice(0, FIRST_EPISODES) : episodes;
  return (
    <>
      <h3>Episodes ({episodes.length})</h3>
      {cut ? (
        <p class="muted">
          {all
            ? `All ${episodes.length} shown, newest first`
            : `The newest ${shown.length} of ${episodes.length}`}
          {episodes.length >= EPISODES_LISTED ? `; the node lists at most ${EPISODES_LISTED}.` : '.'}{' '}
          <ShowAll
            count={episodes.length}
            many="episodes"
            all={all}
            onToggle={() => setAll(!all)}
            buttonRef={toggle}
          />
        </p>
      ) : null}
      {episodes.length === 0 ? (
        <p class="muted">No episodes yet: one is kept as each turn ends.</p>
      ) : (
        <ul ref={list}>
          {shown.map((e) => (
            <li key={e.id} data-episode={e.id}>
              {e.task_summary ?? e.id}{' '}
              <span class="muted">
                {e.review_outcome ?? ''} <Ago at={e.ended_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function MemoryView(props: { handle: string; again: unknown }) {
  const asked = useQuestion<Memory>('memory', { id: props.handle }, props.again);
  return (
    <Answer asked={asked} what="memory">
      {(m) => {
        return (
          <div class="memory">
            <Notes long={m.personal_memories?.long ?? []} short={m.personal_memories?.short ?? []} />
            <Episodes episodes={m.episodes ?? []} />
            <h3>People ({m.counterparty_profiles?.length ?? 0})</h3>
            <Listed
              items={m.counterparty_profiles}
              none="No people yet: the seat profiles those it deals with."
            >
              {(m.counterparty_profiles ?? []).map((p, i) => (
                <li key={i}>
                  {p.subject_name ?? p.subject_label}{' '}
                  <span class="muted">{p.interaction_count ?? 0} interactions</span>
                </li>
              ))}
            </Listed>
            <h3>Skills ({m.synthesized_skills?.length ?? 0})</h3>
            <Listed
              items={m.synthesized_skills}
              none="No skills yet: the seat synthesizes them from its turns."
            >
              {(m.synthesized_skills ?? []).map((s) => (
                <li key={s.id}>
                  {s.name} <span class="muted">{s.description}</span>
                </li>
              ))}
            </Listed>
          </div>
        );
      }}
    </Answer>
  );
}
