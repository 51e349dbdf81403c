/**
 * One seat: who it is and what holds it (a pause, a question, an error), with its live turn, budget and
 * schedules; its turns (seat-turns.tsx) and memory (seat-memory.tsx) are drawn by their own files.
 */
import { useRef, useState } from 'preact/hooks';
import { useConnection, useLiveSlice, useQuestion } from '../live/context.js';
import type { AgentRow, Schedule } from '../live/types.js';
import type { Route } from '../router.js';
import { count, json, time } from '../ui/format.js';
import { Answer, Badge, Card, FIRST_ROWS, Hint, MeterBar, ShowAll, Unread } from '../ui/parts.js';
import { cardHeading, useFocusKept } from '../ui/keep-focus.js';
import { LongText } from '../ui/long-text.js';
import { CodingRuns } from './coding-runs.js';
import { SeatPicker } from './seat-picker.js';
import { MemoryView } from './seat-memory.js';
import { History, LiveTurn } from './seat-turns.js';
import { allSeats, schedulesOf } from './selectors.js';
import { Ago } from '../ui/ago.js';

interface LastError {
  at?: string;
  message?: string;
  source?: string;
  kind?: string | null;
  turn_id?: string | null;
  phase?: string | null;
}

/** The seat's last error (a failed phase, a guard that fired), with where it came from. */
function LastErrorNotice(props: { error: unknown }) {
  const e = props.error;
  if (typeof e !== 'object' || e === null) return null;
  const err = e as LastError;
  const facts = [
    err.kind ? `kind ${err.kind}` : null,
    err.phase ? `phase ${err.phase}` : null,
    err.turn_id ? `turn ${err.turn_id}` : null,
    err.source ? `from ${err.source}` : null,
  ].filter((f): f is string => f !== null);
  return (
    <div class="notice error last-error">
      <p>
        Last error
        {err.at ? (
          <span title={time(err.at)}>
            {' '}
            <Ago at={err.at} />
          </span>
        ) : null}
        : {err.message ?? 'no message'}
      </p>
      {facts.length > 0 ? <p class="muted">{facts.join(' · ')}</p> : null}
    </div>
  );
}

function PauseControls(props: { row: AgentRow }) {
  const connection = useConnection();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; hint?: string } | null>(null);
  const paused = props.row.paused !== null;
  if (!connection.hasToken) return <p class="muted">Pausing and resuming need an operator token.</p>;
  const act = async (verb: 'pause' | 'resume'): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      await connection.fetchJson(`/agents/${encodeURIComponent(props.row.id)}/${verb}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: `from the dashboard` }),
      });
      setMessage({ text: verb === 'pause' ? 'Paused.' : 'Resumed.' });
    } catch (err) {
      // The node's words: its detail, and its hint on what to do.
      const refused = err as Error & { hint?: string };
      setMessage({ text: `Refused: ${refused.message}`, ...(refused.hint ? { hint: refused.hint } : {}) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="actions">
      {/* aria-disabled, not disabled: a disabled button drops the focus it holds to the page. */}
      <button
        type="button"
        aria-disabled={busy || paused}
        onClick={() => !busy && !paused && void act('pause')}
      >
        Pause seat
      </button>
      <button
        type="button"
        aria-disabled={busy || !paused}
        onClick={() => !busy && paused && void act('resume')}
      >
        Resume seat
      </button>
      {/* Always in the page: a live region added with its words is often not announced. */}
      <span role="status">
        {message?.text}
        <Hint hint={message?.hint} />
      </span>
    </div>
  );
}

/** A seat's schedules: a screenful, the rest on demand (a seat may run hundreds). */
function SeatSchedules(props: { schedules: readonly Schedule[] }) {
  const [all, setAll] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const none = useRef<HTMLParagraphElement>(null);
  // A live update that leaves a screenful or less takes the button away: its focus goes to the card's heading.
  useFocusKept(toggle, () => cardHeading(list.current ?? none.current));
  const { schedules } = props;
  if (schedules.length === 0)
    return (
      <p ref={none} class="muted">
        None.
      </p>
    );
  const cut = schedules.length > FIRST_ROWS;
  return (
    <>
      {cut ? (
        <ShowAll
          count={schedules.length}
          many="schedules"
          all={all}
          onToggle={() => setAll(!all)}
          buttonRef={toggle}
        />
      ) : null}
      <ul ref={list}>
        {(cut && !all ? schedules.slice(0, FIRST_ROWS) : schedules).map((s) => (
          <li key={`${s.scope_id}/${s.name}`}>
            {s.name} <code>{s.cron}</code>
            {s.timezone ? <span class="muted"> {s.timezone}</span> : null}{' '}
            {s.enabled === false ? (
              <Badge value="disabled" />
            ) : (
              <span title={time(s.next_run, s.timezone)}>
                next <Ago at={s.next_run} />
              </span>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export function SeatRoom(props: { route: Route }) {
  const { org, unread } = useLiveSlice((s) => ({ org: s.snapshot?.org, unread: s.snapshot === null }));
  const seats = allSeats(org);
  const handle = props.route.rest[0] ?? seats.find((s) => s.kind === 'agent')?.handle ?? '';
  const seat = seats.find((s) => s.handle === handle);
  // This seat's row, not every seat's: another seat's frame draws nothing here.
  const live = useLiveSlice((s) => ({
    row: s.snapshot?.agents[handle],
    schedules: s.snapshot?.schedules,
    sandboxes: s.snapshot?.sandboxes,
  }));
  const row = live.row;
  // The agent question carries llm_history; ask again when the seat's turn ends or moves on.
  const turnKey = `${row?.live_call?.turn_id ?? ''}:${row?.live_call?.phase ?? ''}:${row?.activity ?? ''}`;
  const detail = useQuestion<AgentRow>(
    // A handle the company no longer has is not asked about: its page says so.
    seat?.kind === 'agent' ? 'agent' : null,
    { id: handle },
    turnKey,
  );
  const schedules = schedulesOf(live.schedules).filter(
    (s) => s.runners?.includes(handle) || s.scope_id === handle,
  );
  return (
    <div class="stack">
      <SeatPicker handle={handle} seats={seats} known={seat !== undefined} unread={unread} />
      {unread ? (
        <Unread />
      ) : !seat ? (
        <p class="muted">{handle ? `No seat ${handle} in this company.` : 'No seats yet.'}</p>
      ) : (
        <>
          <Card title={seat.name} wide>
            <p>
              <Badge value={seat.kind === 'human' ? 'human' : (row?.activity ?? 'idle')} />{' '}
              {row?.stopped_reason ? <span class="muted">stopped: {row.stopped_reason}</span> : null}{' '}
              {/* A separator, so `stopped: paused` and the unit do not read as one phrase. */}
              {seat.unit ? (
                <span class="muted">
                  {row?.stopped_reason ? '· ' : ''}unit {seat.unit}
                </span>
              ) : null}
            </p>
            {seat.goal ? (
              <p>
                <LongText text={seat.goal} what="the goal" />
              </p>
            ) : null}
            {row?.paused ? (
              <p class="notice">
                Paused by {row.paused.by} <Ago at={row.paused.at} />
                {row.paused.reason ? (
                  <>
                    : <LongText text={row.paused.reason} what="the reason" />
                  </>
                ) : null}
              </p>
            ) : null}
            {row?.needs ? (
              <p class="notice">
                Waiting on people{' '}
                <span title={time(row.needs.since)}>
                  since <Ago at={row.needs.since} />
                </span>
                : <LongText text={row.needs.reason} what="the question" />
              </p>
            ) : null}
            <LastErrorNotice error={detail.data?.last_error ?? row?.last_error} />
            {seat.kind === 'agent' && row ? <PauseControls row={row} /> : null}
            {seat.llm?.length ? (
              <p class="muted">models: {seat.llm.map((l) => `${l.key} ${l.model}`).join(' → ')}</p>
            ) : null}
          </Card>
          {seat.kind === 'agent' ? (
            <>
              <Card title="Live turn" wide>
                <LiveTurn call={row?.live_call ?? null} />
              </Card>
              <Card title="Coding runs" wide>
                <CodingRuns runs={live.sandboxes ?? []} seat={handle} />
              </Card>
              <Card title="Budget">
                <MeterBar label="Seat tokens" meter={row?.budget?.seat} />
                <p class="muted">
                  24 h: {count(row?.tokens?.total_tokens)} tokens in {count(row?.tokens?.calls)} calls
                </p>
              </Card>
              <Card title="Schedules">
                <SeatSchedules schedules={schedules} />
              </Card>
              <Card title="LLM history" wide>
                <Answer asked={detail} what="llm_history">
                  {(d) => <History rows={d.llm_history ?? []} />}
                </Answer>
              </Card>
              <Card title="Memory" wide>
                <MemoryView handle={handle} again={row?.last_turn ? json(row.last_turn) : ''} />
              </Card>
            </>
          ) : (
            <p class="muted">A human seat: never executed, no turns, no memory.</p>
          )}
        </>
      )}
    </div>
  );
}
