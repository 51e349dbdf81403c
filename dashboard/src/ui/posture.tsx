/**
 * What this node's configuration posture means, in words (spec "Node configuration state"; ops/config.md,
 * ops/fleet.md "Alarms"): a header badge reading `isolated` or `stuck` does not say which revision failed,
 * why, what the node runs meanwhile or what brings it back. Only what the node reports is said: `/health`
 * (posture, applied epoch, lag, start), the failed apply's `ConfigRevisionApplied` event (revision, epoch,
 * error, instant) and, for `stuck`, the active revision as `/config` reads it (sealed under a key it lacks).
 */
import type { ComponentChildren } from 'preact';
import { useQuestion, useLiveSlice } from '../live/context.js';
import type { EventRow } from '../live/types.js';
import { time } from './format.js';
import { LongText } from './long-text.js';

/** The `svc.config.revision_applied` announcement an apply record carries (ops/event-types.md). */
interface Applied {
  revision_id?: string;
  epoch?: number;
  status?: string;
  error?: string;
  at?: string;
}

/** The active revision as this node reads it: a sealed one it cannot open is `{encrypted, key_id}`. */
interface Active {
  revision_id?: string;
  document?: { encrypted?: boolean; key_id?: string | null };
}

/**
 * Apply records read to find this node's newest: one per node and activation, so a failure stays in reach
 * for 100 / fleet size activations after it (a node that failed applies nothing newer until one succeeds).
 */
const APPLY_ROWS = 100;

const diverged = new Set(['isolated', 'stuck', 'shed']);

/** This node's newest apply record when it failed at an epoch past the one it runs, else null. */
function useFailedApply(node: string | null, appliedEpoch: number, again: unknown): Applied | null {
  const list = useQuestion<{ rows?: EventRow[] }>(
    node === null ? null : 'events',
    { type: 'ConfigRevisionApplied', limit: APPLY_ROWS },
    again,
  );
  const newest = list.data?.rows?.find((r) => r.source === `node/${node}`) ?? null;
  const failed = node !== null && newest?.failed === true ? newest.id : null;
  const event = useQuestion<{ payload?: Applied }>(failed === null ? null : 'event', {
    event_id: failed ?? '',
  });
  const payload = failed === null ? null : (event.data?.payload ?? null);
  return payload !== null && (payload.epoch ?? 0) > appliedEpoch ? payload : null;
}

function Since(props: { at: string | undefined }) {
  if (props.at === undefined || Number.isNaN(Date.parse(props.at))) return null;
  return (
    <>
      {' '}
      since <time dateTime={props.at}>{time(props.at)}</time>
    </>
  );
}

function Failure(props: { failed: Applied }) {
  const { failed } = props;
  return (
    <>
      revision <code>{failed.revision_id ?? '?'}</code> (epoch {failed.epoch ?? '?'})
      <Since at={failed.at} />
      {failed.error ? (
        <>
          , the node reports:{' '}
          <q>
            <LongText text={failed.error} what="the failure" />
          </q>
        </>
      ) : null}
    </>
  );
}

/** What was said of the failure, when it is known. */
function Reported(props: { failed: Applied | null }) {
  if (props.failed === null) return null;
  return (
    <>
      : <Failure failed={props.failed} />
    </>
  );
}

/**
 * `stuck` has two causes the node tells apart only through `/config` (guarded): an active revision sealed
 * under a key this node lacks reads `{encrypted, key_id}`; one it opens means the rollback failed. Without
 * that answer (no token) both are named, as the `apply_stuck` alarm does.
 */
function Stuck(props: { epoch: number; failed: Applied | null; active: Active | null }) {
  const { epoch, failed, active } = props;
  const out = (
    <>
      out of rotation: <code>/ready</code> answers 503 (<code>stuck</code>)
    </>
  );
  if (active?.document?.encrypted === true) {
    const key = active.document.key_id ?? null;
    return (
      <>
        This node cannot open the active configuration (<code>stuck</code>)
        <Since at={failed?.at} />: revision <code>{active.revision_id ?? '?'}</code> is sealed under{' '}
        {key !== null ? (
          <>
            key <code>{key}</code>
          </>
        ) : (
          'a key'
        )}
        , which this node's keyring lacks. It keeps the revision of epoch {epoch} and is {out}. Add{' '}
        {key !== null ? <code>{key}</code> : 'that key'} to <code>secrets.keys</code> in this node's Tier A
        file (the material the other nodes hold) and restart it.
      </>
    );
  }
  if (active !== null) {
    return (
      <>
        A configuration apply failed on this node and so did its rollback (<code>stuck</code>)
        <Reported failed={failed} />. Its configuration is neither that revision nor the one it ran before
        (epoch {epoch}), and it is {out}. Activate a corrected revision: an apply that succeeds brings it
        back.
      </>
    );
  }
  return (
    <>
      The active configuration is not applied on this node (<code>stuck</code>)
      <Reported failed={failed} />. Either its revision is sealed under a key this node's keyring lacks (add
      the key to <code>secrets.keys</code> in its Tier A file and restart it), or its apply failed and the
      rollback failed too (activate a corrected revision). It is {out}; with the operator token this notice
      says which.
    </>
  );
}

export function PostureNotice() {
  const live = useLiveSlice((s) => {
    const health = s.snapshot?.health ?? null;
    return {
      posture: health?.posture ?? null,
      node: health?.node ?? null,
      configured: health?.configured ?? true,
      epoch: health?.applied_epoch ?? 0,
      lag: health?.stall_lag_seconds ?? null,
      startedAt: health?.started_at,
      // A draining node says so in its own notice; its posture no longer matters.
      draining: health?.status === 'shutting_down',
      // Health is pushed on a 5 s tick; the company (`org`) on the apply itself. Either one says it.
      company: !!s.snapshot?.org?.revision_id,
      // Moved by an apply record, a node's posture or epoch changing (store.ts `movesFleet`).
      tick: s.fleetTick,
    };
  });
  // Running nothing because the active revision's apply fails (nothing to fall back to): a company exists.
  const stuckBare = !live.configured && !live.draining && live.posture === 'stuck';
  const unconfigured = !live.configured && !live.company && !live.draining && !stuckBare;
  const posture = (live.configured || stuckBare) && !live.draining ? live.posture : null;
  const failed = useFailedApply(
    posture !== null && diverged.has(posture) ? live.node : null,
    live.epoch,
    live.tick,
  );
  const active = useQuestion<Active>(posture === 'stuck' ? 'config' : null, {}, live.tick);
  let words: ComponentChildren = null;
  if (stuckBare) {
    words = (
      <>
        This node cannot apply the active configuration (<code>stuck</code>), with none to fall back to
        <Reported failed={failed} />. It runs no configuration: no seat runs, webhooks are answered 503 and{' '}
        <code>/ready</code> answers 503. It tries again every 15 s; its log says why the apply fails. Remove
        the cause, or activate a corrected revision.
      </>
    );
  } else if (unconfigured) {
    words = (
      <>
        This node has no company yet. It has run no configuration
        <Since at={live.startedAt} />: no seat runs, webhooks are answered 503 and <code>/ready</code> answers
        503 (<code>unconfigured</code>). Push one with{' '}
        <code>svc config put ops/company.example.yaml --create --summary "first"</code>.
      </>
    );
  } else if (posture === 'isolated') {
    words = (
      <>
        A configuration apply failed on this node (<code>isolated</code>)
        <Reported failed={failed} />. It rolled back and serves the revision it last applied (epoch{' '}
        {live.epoch}), still answering <code>/ready</code>; the failed revision stays active in the store and
        this node does not try it again. Activate a corrected revision (a <code>PUT</code> or{' '}
        <code>PATCH</code> of <code>/config</code>, or a revert to a good one): once this node applies it, it
        serves again.
      </>
    );
  } else if (posture === 'stuck') {
    words = <Stuck epoch={live.epoch} failed={failed} active={active.data} />;
  } else if (posture === 'shed') {
    words = (
      <>
        This node left rotation (<code>shed</code>): it lagged the fleet's active configuration epoch past 45
        s while a peer had applied it
        {live.lag !== null ? <> (now {live.lag} s behind)</> : null}
        {failed ? (
          <>
            ; its last apply failed, <Failure failed={failed} />
          </>
        ) : null}
        . It runs epoch {live.epoch} and <code>/ready</code> answers 503 (<code>shed</code>) until an apply
        succeeds. The fleet room shows which epoch each peer runs; this node's log says why its apply does not
        finish.
      </>
    );
  } else if (posture === 'wait') {
    words = (
      <>
        This node is applying a new configuration revision (<code>wait</code>): until the apply ends it serves
        the revision of epoch {live.epoch}, and <code>/ready</code> still answers 200.
      </>
    );
  }
  if (words === null) return null;
  return (
    <p class={posture === 'stuck' || posture === 'shed' ? 'notice error' : 'notice'} data-notice="posture">
      {words}
    </p>
  );
}
