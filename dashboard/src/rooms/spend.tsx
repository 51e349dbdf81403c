/** Spend: the token series chart, the breakdown by seat, phase and model, and the budgets. */
import { useState } from 'preact/hooks';
import { useLiveSlice, useQuestion } from '../live/context.js';
import type { Meter, TokenTotals } from '../live/types.js';
import { count, percent } from '../ui/format.js';
import { Answer, BarChart, Card, MeterBar, Table } from '../ui/parts.js';

interface Series {
  bands: string[];
  buckets: Array<{ label: string; bands: Record<string, number> }>;
}
interface Breakdown {
  totals: TokenTotals;
  by_phase: Array<TokenTotals & { phase: string }>;
  by_model: Array<TokenTotals & { model: string }>;
  by_agent: Array<TokenTotals & { handle: string; role: string }>;
}
interface Budgets {
  org: Meter;
  seats: Array<Meter & { handle: string; role: string }>;
}

const tokenColumns = [
  { label: 'total', cell: (r: TokenTotals) => count(r.total_tokens), numeric: true },
  { label: 'input', cell: (r: TokenTotals) => count(r.input_tokens), numeric: true },
  { label: 'output', cell: (r: TokenTotals) => count(r.output_tokens), numeric: true },
  { label: 'calls', cell: (r: TokenTotals) => count(r.calls), numeric: true },
];

/**
 * How much of a figure is estimated (a provider's stream cut before it reported its usage); nothing when
 * none is, or the node does not say.
 */
function Estimated(props: { tokens: number | undefined }) {
  if (!props.tokens) return null;
  return (
    <span
      class="muted"
      title="A provider's stream was cut before it reported its usage: those counts are estimated."
    >
      {' '}
      (of which ~{count(props.tokens)} estimated)
    </span>
  );
}

/** Refused seats first, then the nearest their cap, then the most used: the rows a cut table keeps. */
function pressingFirst<T extends Meter>(seats: readonly T[]): T[] {
  return [...seats].sort(
    (a, b) => Number(b.refused) - Number(a.refused) || (b.ratio ?? 0) - (a.ratio ?? 0) || b.used - a.used,
  );
}

export function Spend() {
  // Spend moves on the tokens push (once per tick), not on every event.
  const live = useLiveSlice((s) => ({
    tick: s.snapshot?.tokens?.totals?.total_tokens ?? 0,
    configTick: s.configTick,
  }));
  const [band, setBand] = useState('phase');
  const [days, setDays] = useState(7);
  const tick = live.tick;
  const series = useQuestion<Series>('tokens_series', { bucket: 'day', band }, tick);
  const breakdown = useQuestion<Breakdown>('tokens_breakdown', { since_days: days }, tick);
  // Caps live in the configuration: budgets follow it as well as the spend.
  const budgets = useQuestion<Budgets>('budgets', {}, `${tick}:${live.configTick}`);
  return (
    <div class="stack">
      <Card title="Tokens per day" wide>
        <label>
          Split by
          <select value={band} onChange={(e) => setBand(e.currentTarget.value)}>
            <option value="phase">phase</option>
            <option value="model">model</option>
            <option value="agent">seat</option>
          </select>
        </label>
        <Answer asked={series} what="tokens_series">
          {(s) => <BarChart label={`Tokens per day by ${band}`} buckets={s.buckets} bands={s.bands} />}
        </Answer>
      </Card>
      <Card title="Breakdown" wide>
        <label>
          Window
          <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            {[1, 7, 14, 30].map((d) => (
              <option key={d} value={d}>
                {d} {d === 1 ? 'day' : 'days'}
              </option>
            ))}
          </select>
        </label>
        <Answer asked={breakdown} what="tokens_breakdown">
          {(b) => (
            <>
              <p>
                {count(b.totals.total_tokens)} tokens in {count(b.totals.calls)} calls
                <Estimated tokens={b.totals.estimated_tokens} />
              </p>
              <Table
                caption="By seat"
                rows={b.by_agent}
                rowKey={(r) => r.handle}
                many="seats"
                empty="No seat spent tokens in this window."
                columns={[{ label: 'seat', cell: (r) => r.role || r.handle }, ...tokenColumns]}
              />
              <Table
                caption="By phase"
                rows={b.by_phase}
                rowKey={(r) => r.phase}
                empty="No phases in this window."
                columns={[{ label: 'phase', cell: (r) => r.phase }, ...tokenColumns]}
              />
              <Table
                caption="By model"
                rows={b.by_model}
                rowKey={(r) => r.model}
                empty="No models in this window."
                columns={[{ label: 'model', cell: (r) => r.model }, ...tokenColumns]}
              />
            </>
          )}
        </Answer>
      </Card>
      <Card title="Budgets" wide>
        <Answer asked={budgets} what="budgets">
          {(b) => (
            <>
              <MeterBar label="Org" meter={b.org} />
              {b.org.estimated_tokens ? (
                <p>
                  {count(b.org.used)} tokens used this month
                  <Estimated tokens={b.org.estimated_tokens} />
                </p>
              ) : null}
              <Table
                caption="Seat caps"
                rows={pressingFirst(b.seats)}
                rowKey={(r) => r.handle}
                many="seat caps"
                empty="No agent seat in this company yet."
                columns={[
                  { label: 'seat', cell: (r) => r.role || r.handle },
                  { label: 'used', cell: (r) => count(r.used), numeric: true },
                  { label: 'cap', cell: (r) => (r.cap > 0 ? count(r.cap) : 'none'), numeric: true },
                  { label: 'share', cell: (r) => percent(r.ratio), numeric: true },
                  { label: 'refused', cell: (r) => (r.refused ? 'yes' : 'no') },
                ]}
              />
            </>
          )}
        </Answer>
      </Card>
    </div>
  );
}
