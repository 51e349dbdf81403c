/**
 * Feed: events with filters (category, exact type, seat) the `events` question applies over the whole
 * history, keyset paging, live rows on the first page, and a trace view (every event of one trace, with
 * payloads on demand).
 */
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLiveSlice, useQuestion } from '../live/context.js';
import type { EventRow } from '../live/types.js';
import { navigate, type Route } from '../router.js';
import { json, time } from '../ui/format.js';
import { useFocusKept } from '../ui/keep-focus.js';
import { Answer, Badge, Card } from '../ui/parts.js';
import { allSeats } from './selectors.js';
import { Ago } from '../ui/ago.js';

const categories = ['a2a', 'decision', 'learning', 'lifecycle', 'notification', 'system', 'task', 'webhook'];

interface Page {
  rows: EventRow[];
  exhausted: boolean;
  next: { before_time: string; before_id: string } | null;
}

function EventList(props: {
  rows: EventRow[];
  onTrace: (id: string) => void;
  listRef: RefObject<HTMLOListElement | null>;
}) {
  if (props.rows.length === 0) return <p class="muted">No events match.</p>;
  return (
    <ol ref={props.listRef} class="feed" aria-label="Events, newest first">
      {props.rows.map((e) => (
        <li key={e.id} class={e.failed ? 'failed' : undefined}>
          <time dateTime={e.timestamp} title={time(e.timestamp)}>
            <Ago at={e.timestamp} />
          </time>
          <Badge value={e.category} />
          {/* Said in words as well as in red: colour alone reaches neither a screen reader nor every eye. */}
          {e.failed ? <Badge value="failed" /> : null}
          <code class="type">{e.type}</code>
          <span class="summary">{e.summary}</span>
          {e.agent_id ? <span class="muted">{e.agent_id}</span> : null}
          {e.trace_id ? (
            <button
              type="button"
              class="link-button"
              // Fifty buttons named "trace" read alike in a screen reader's list: each names its event.
              aria-label={`trace of ${e.type} at ${time(e.timestamp)}: ${e.summary}`}
              onClick={() => props.onTrace(e.trace_id!)}
            >
              trace
            </button>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function Trace(props: { traceId: string; onClose: () => void }) {
  const asked = useQuestion<{ events?: EventRow[]; rows?: EventRow[]; total?: number }>('trace', {
    trace_id: props.traceId,
  });
  const [open, setOpen] = useState<string | null>(null);
  // Opened from a row far down the feed: bring the card into view and move the focus to it.
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    card.current?.scrollIntoView({ block: 'start' });
    card.current?.focus({ preventScroll: true });
  }, [props.traceId]);
  return (
    <div
      ref={card}
      tabIndex={-1}
      class="trace-card"
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        props.onClose();
      }}
    >
      <Card title={`Trace ${props.traceId}`} wide>
        <button type="button" onClick={props.onClose}>
          Close trace
        </button>
        <Answer asked={asked} what="trace">
          {(t) => (
            <ol class="trace">
              {(t.events ?? t.rows ?? []).map((e) => (
                <li key={e.id}>
                  <span class="muted">{time(e.timestamp)}</span> <code>{e.type}</code> {e.summary}{' '}
                  <button
                    type="button"
                    class="link-button"
                    aria-expanded={open === e.id}
                    aria-label={`payload of ${e.type} at ${time(e.timestamp)}: ${e.summary}`}
                    onClick={() => setOpen(open === e.id ? null : e.id)}
                  >
                    payload
                  </button>
                  {open === e.id ? <pre>{json(e.payload ?? null)}</pre> : null}
                </li>
              ))}
            </ol>
          )}
        </Answer>
      </Card>
    </div>
  );
}

export function Feed(props: { route: Route }) {
  const q = props.route.query;
  const category = q.get('category') ?? '';
  const seat = q.get('seat') ?? '';
  const type = q.get('type') ?? '';
  const trace = q.get('trace');
  const [cursor, setCursor] = useState<Page['next']>(null);
  const [history, setHistory] = useState<Array<NonNullable<Page['next']>>>([]);
  // The first page follows the stream's events; an older page, only the seats it filters on.
  const live = useLiveSlice((s) => ({
    eventTick: cursor === null ? s.eventTick : 0,
    org: s.snapshot?.org,
  }));
  const withQuery = (name: string, value: string): URLSearchParams => {
    const next = new URLSearchParams(q);
    if (value === '') next.delete(name);
    else next.set(name, value);
    return next;
  };
  const setFilter = (name: string, value: string): void => {
    setCursor(null);
    setHistory([]);
    navigate('feed', [], withQuery(name, value));
  };
  // A trace opens over the page being read, which stays; closing it hands the focus back to the row's
  // button that opened it (or to the room, when it was opened by its address or that row has gone).
  const opener = useRef<HTMLElement | null>(null);
  const openTrace = (id: string): void => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    navigate('feed', [], withQuery('trace', id));
  };
  const closeTrace = (): void => {
    const back = opener.current?.isConnected ? opener.current : document.getElementById('main');
    opener.current = null;
    navigate('feed', [], withQuery('trace', ''));
    back?.focus();
  };
  // The first page follows the stream; older pages stay as they were read.
  const page = useQuestion<Page>(
    'events',
    {
      limit: 50,
      feed_only: true,
      category,
      agent_id: seat,
      type,
      before_time: cursor?.before_time,
      before_id: cursor?.before_id,
    },
    live.eventTick,
  );
  // Newer events push the first page's oldest rows to the next: a row's trace button that goes with them
  // hands the focus to Older, which leads to it, rather than to the page.
  const list = useRef<HTMLOListElement>(null);
  const older = useRef<HTMLButtonElement>(null);
  useFocusKept(list, () => older.current);
  const seats = allSeats(live.org);
  return (
    <div class="stack">
      <form class="filters" aria-label="Feed filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Category
          <select value={category} onChange={(e) => setFilter('category', e.currentTarget.value)}>
            <option value="">all</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <input
            type="search"
            list="feed-types"
            placeholder="e.g. TaskCreated"
            value={type}
            onChange={(e) => setFilter('type', e.currentTarget.value.trim())}
          />
        </label>
        <label>
          Seat
          <select value={seat} onChange={(e) => setFilter('seat', e.currentTarget.value)}>
            <option value="">all</option>
            {seats.map((s) => (
              <option key={s.handle} value={s.handle}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      {trace ? <Trace traceId={trace} onClose={closeTrace} /> : null}
      <Answer asked={page} what="events">
        {(p) => (
          <>
            <datalist id="feed-types">
              {[...new Set(p.rows.map((r) => r.type))].sort().map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
            <EventList rows={p.rows} onTrace={openTrace} listRef={list} />
            <div class="pager">
              {/* aria-disabled, not disabled: a button disabled under the focus drops it to the page. */}
              <button
                type="button"
                aria-disabled={history.length === 0}
                onClick={() => {
                  if (history.length === 0) return;
                  const prev = history.slice(0, -1);
                  setHistory(prev);
                  setCursor(prev[prev.length - 1] ?? null);
                }}
              >
                Newer
              </button>
              <button
                ref={older}
                type="button"
                aria-disabled={p.next === null}
                onClick={() => {
                  if (!p.next) return;
                  setHistory([...history, p.next]);
                  setCursor(p.next);
                }}
              >
                Older
              </button>
              {p.exhausted ? <span class="muted">end of history</span> : null}
            </div>
          </>
        )}
      </Answer>
    </div>
  );
}
