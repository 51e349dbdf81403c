/**
 * While this node cannot reach its bus, every room says its figures are as last read (ops/fleet.md "While
 * the bus is unreachable"): the socket tells only `/health` `status: isolated` (with a posture that is not
 * itself `isolated`), and a badge alone does not say what it means for the seats, feed and spend shown.
 */
import { useEffect, useState } from 'preact/hooks';
import { useConnection, useLiveSlice } from '../live/context.js';
import { time } from './format.js';

export function BusUnreachable() {
  const connection = useConnection();
  const live = useLiveSlice((s) => {
    const health = s.snapshot?.health;
    return {
      unlinked: health?.status === 'isolated' && health.posture !== 'isolated',
      // Asked again on each pulse until the node says since when (its read routes may mark it a moment later).
      pulse: health,
      readable: s.link !== 'token-needed',
    };
  });
  const [since, setSince] = useState<string | null>(null);
  const known = since !== null;
  useEffect(() => {
    if (!live.unlinked) {
      setSince(null);
      return;
    }
    if (known || !live.readable) return;
    let current = true;
    void connection.staleness().then((why) => {
      const instant = why?.replace(/^bus unreachable since /, '') ?? '';
      if (current && !Number.isNaN(Date.parse(instant))) setSince(instant);
    });
    return () => {
      current = false;
    };
  }, [live.unlinked, known ? null : live.pulse, live.readable]);
  if (!live.unlinked) return null;
  return (
    <p class="notice stale" data-notice="bus-unreachable">
      This node cannot reach its bus
      {since !== null ? (
        <>
          {' '}
          since <time dateTime={since}>{time(since)}</time>
        </>
      ) : null}
      : seats, events and spend are shown as it last read them, and changes made elsewhere reach it once the
      link is back.
    </p>
  );
}
