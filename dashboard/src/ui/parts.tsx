/** Small building blocks shared by the rooms. Styling is by class only: the CSP allows no inline style. */
import type { ComponentChildren, RefObject } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useLiveSlice, type Asked } from '../live/context.js';
import type { Meter } from '../live/types.js';
import { count, percent } from './format.js';
import { cardHeading, useFocusKept } from './keep-focus.js';

export function Card(props: { title: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <section class={props.wide ? 'card wide' : 'card'} aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

export function Stat(props: { label: string; value: ComponentChildren; tone?: string }) {
  return (
    <div class="stat">
      <span class="stat-label">{props.label}</span>
      <span class={`stat-value ${props.tone ?? ''}`}>{props.value}</span>
    </div>
  );
}

const tones: Record<string, string> = {
  ok: 'good',
  serve: 'good',
  working: 'busy',
  idle: 'quiet',
  needs: 'warn',
  stopped: 'bad',
  wait: 'warn',
  unconfigured: 'warn',
  unresolved: 'warn',
  unreadable: 'bad',
  shed: 'bad',
  failed: 'bad',
  duplicate: 'bad',
  stuck: 'bad',
  isolated: 'bad',
  critical: 'bad',
  warning: 'warn',
  shutting_down: 'warn',
  human: 'quiet',
};

export function Badge(props: { value: string; title?: string }) {
  return (
    <span class={`badge ${tones[props.value] ?? 'quiet'}`} title={props.title}>
      {props.value}
    </span>
  );
}

/** A budget meter: the native element carries its value to assistive technology. */
export function MeterBar(props: { label: string; meter: Meter | null | undefined }) {
  const m = props.meter;
  if (!m || m.cap <= 0) return <p class="muted">{props.label}: no cap</p>;
  return (
    <div class="meter">
      <label>
        {props.label}: {count(m.used)} of {count(m.cap)} ({percent(m.ratio)})
        {m.refused ? <Badge value="refused" /> : null}
        <meter min={0} max={m.cap} low={m.cap * 0.75} high={m.cap * 0.9} optimum={0} value={m.used} />
      </label>
    </div>
  );
}

/** The node's own advice on a refusal (`hint`), shown after its detail. */
export function Hint(props: { hint: string | undefined }) {
  return props.hint ? <span class="hint"> {props.hint}</span> : null;
}

export function Answer<T>(props: {
  asked: Asked<T>;
  children: (data: T) => ComponentChildren;
  what?: string;
}) {
  const { asked } = props;
  const what = props.what ?? 'The question';
  if (asked.error && asked.stale && asked.data !== null)
    return (
      <>
        <p class="notice stale" role="status">
          Showing an earlier answer: {what} was not answered ({asked.error.code})
          {asked.loading ? '; asking again.' : '.'}
        </p>
        {props.children(asked.data)}
      </>
    );
  if (asked.error?.code === 'timeout' && asked.loading)
    return (
      <p class="muted" aria-busy="true">
        {what} was not answered in time; asking again…
      </p>
    );
  if (asked.error) {
    if (asked.error.kind === 'unauthorized' || asked.error.code === 'invalid_token')
      return <p class="notice">This needs an operator token: enter one at the top of the page.</p>;
    // Nothing there yet (no active revision, an item gone) is a state to show, not a failure.
    if (asked.error.kind === 'not_found')
      return (
        <p class="muted" data-refusal={asked.error.code}>
          {asked.error.message || 'Nothing here yet.'}
          {asked.error.code !== 'not_found' ? <> ({asked.error.code})</> : null}
          <Hint hint={asked.error.hint} />
        </p>
      );
    return (
      <p class="notice error" role="alert">
        {what} was not answered: {asked.error.code}
        {asked.error.message && asked.error.message !== asked.error.code ? ` (${asked.error.message})` : ''}
        <Hint hint={asked.error.hint} />
      </p>
    );
  }
  if (asked.data === null)
    return (
      <p class="muted" aria-busy="true">
        Loading…
      </p>
    );
  return <>{props.children(asked.data)}</>;
}

export interface Column<T> {
  readonly label: string;
  readonly cell: (row: T) => ComponentChildren;
  readonly numeric?: boolean;
}

/** Rows a long table shows until asked for all: a screenful, not one row per seat of a large company. */
/** How many rows of a long list show before its Show all button. */
export const FIRST_ROWS = 20;

/**
 * The button before a long list that shows all of it, or the first screenful again. Before the list, so it
 * keeps its place (and the focus) whichever way it is pressed.
 */
export function ShowAll(props: {
  count: number;
  /** What the rows are, plural ("seat caps"). */
  many: string;
  all: boolean;
  onToggle: () => void;
  buttonRef: RefObject<HTMLButtonElement | null>;
}) {
  return (
    <button
      ref={props.buttonRef}
      type="button"
      class="link-button"
      aria-expanded={props.all}
      onClick={props.onToggle}
    >
      {props.all ? `Show fewer ${props.many}` : `Show all ${props.count} ${props.many}`}
    </button>
  );
}

export function Table<T>(props: {
  caption: ComponentChildren;
  rows: readonly T[];
  columns: ReadonlyArray<Column<T>>;
  empty?: string;
  rowKey: (row: T) => string;
  /** What the rows are, plural ("seat caps"): names the button that shows them all past the first screenful. */
  many?: string;
}) {
  const [all, setAll] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const wrap = useRef<HTMLDivElement>(null);
  const empty = useRef<HTMLParagraphElement>(null);
  // A live update that leaves a screenful or less takes the button away: its focus goes to the card's heading.
  useFocusKept(toggle, () => cardHeading(wrap.current ?? empty.current));
  if (props.rows.length === 0)
    return (
      <p ref={empty} class="muted">
        {props.empty ?? 'Nothing yet.'}
      </p>
    );
  const cut = props.many !== undefined && props.rows.length > FIRST_ROWS;
  const rows = cut && !all ? props.rows.slice(0, FIRST_ROWS) : props.rows;
  return (
    <div ref={wrap} class="table-wrap">
      {cut ? (
        <ShowAll
          count={props.rows.length}
          many={props.many!}
          all={all}
          onToggle={() => setAll(!all)}
          buttonRef={toggle}
        />
      ) : null}
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined} key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) => (
                <td class={c.numeric ? 'num' : undefined} key={c.label}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Stacked bars in SVG (attributes only, no style), one column per bucket. */
export function BarChart(props: {
  label: string;
  buckets: ReadonlyArray<{ label: string; bands: Readonly<Record<string, number>> }>;
  bands: readonly string[];
}) {
  const width = 640;
  const height = 180;
  const max = Math.max(1, ...props.buckets.map((b) => Object.values(b.bands).reduce((a, v) => a + v, 0)));
  const slot = width / Math.max(1, props.buckets.length);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label={props.label}>
        {props.buckets.map((bucket, i) => {
          let y = height;
          return (
            <g key={bucket.label}>
              {props.bands.map((band, j) => {
                const h = ((bucket.bands[band] ?? 0) / max) * height;
                y -= h;
                return h > 0 ? (
                  <rect
                    key={band}
                    class={`band band-${j % 6}`}
                    x={i * slot + 2}
                    y={y}
                    width={slot - 4}
                    height={h}
                  >
                    <title>{`${bucket.label} ${band}: ${count(bucket.bands[band] ?? 0)}`}</title>
                  </rect>
                ) : null;
              })}
              {i % Math.ceil(props.buckets.length / 7) === 0 ? (
                <text class="axis" x={i * slot + slot / 2} y={height + 14} text-anchor="middle">
                  {bucket.label.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
        <line class="axis-line" x1={0} x2={width} y1={height} y2={height} />
      </svg>
      <figcaption>
        {props.bands.length === 0
          ? 'No spend in this window.'
          : props.bands.map((band, j) => (
              <span class="legend" key={band}>
                <svg width="10" height="10" aria-hidden="true">
                  <rect class={`band band-${j % 6}`} width="10" height="10" />
                </svg>
                {band}
              </span>
            ))}
      </figcaption>
      {/* The bars' figures for a keyboard and a screen reader: a bar's title shows only under a mouse. */}
      <details class="chart-table">
        <summary>{props.label} as a table</summary>
        <div class="table-wrap">
          <table>
            <caption>{props.label}</caption>
            <thead>
              <tr>
                <th scope="col">day</th>
                {props.bands.map((band) => (
                  <th scope="col" class="num" key={band}>
                    {band}
                  </th>
                ))}
                <th scope="col" class="num">
                  total
                </th>
              </tr>
            </thead>
            <tbody>
              {props.buckets.map((bucket) => (
                <tr key={bucket.label}>
                  <th scope="row">{bucket.label}</th>
                  {props.bands.map((band) => (
                    <td class="num" key={band}>
                      {count(bucket.bands[band] ?? 0)}
                    </td>
                  ))}
                  <td class="num">{count(Object.values(bucket.bands).reduce((a, v) => a + v, 0))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/**
 * What a room built on the snapshot says before it has one: that a token is needed (reads are off and
 * none is held), else that it waits for the node. Never that the company is empty.
 */
export function Unread() {
  const readsRefused = useLiveSlice((s) => s.readsRefused);
  if (readsRefused)
    return <p class="notice">This needs an operator token: enter one at the top of the page.</p>;
  return (
    <p class="muted" aria-busy="true">
      Waiting for the node…
    </p>
  );
}
