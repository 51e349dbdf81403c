/**
 * A destructive action behind a confirm step: its button opens a small form (an optional reason) that does
 * it or backs out. What came of it is the caller's to say (the row may be gone by then).
 */
import type { Ref } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Hint } from './parts.js';

/** What an action came to, in the node's words when it refused. */
export interface Outcome {
  readonly text: string;
  readonly hint?: string;
  readonly refused: boolean;
}

/**
 * Where an action's outcome is said: always in the page (hidden while empty), so what is written there is
 * announced; focusable, since the row the action was on may be gone by then.
 */
export function OutcomeStatus(props: { said: Ref<HTMLParagraphElement>; outcome: Outcome | null }) {
  const { outcome } = props;
  return (
    <p
      ref={props.said}
      tabIndex={-1}
      role="status"
      class={outcome?.refused ? 'notice error' : outcome ? 'notice' : 'visually-hidden'}
    >
      {outcome?.text}
      <Hint hint={outcome?.hint} />
    </p>
  );
}

export function ConfirmAction(props: {
  /** The button that opens the step, e.g. `Cancel run`. */
  label: string;
  /** What the step asks, e.g. `Cancel coding run sb-1? Its processes are stopped.` */
  question: string;
  /** The button that does it. */
  confirm: string;
  /** Ask for an optional reason, passed to `act` ('' when none). */
  reason?: boolean;
  /** Why the action is not offered (no operator token): the button stays, marked disabled, saying why. */
  unavailable?: string | null;
  /** Does it, then says what came of it and moves the focus there; a refusal is its to show, not thrown. */
  act: (reason: string) => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const yes = useRef<HTMLButtonElement>(null);
  // The focus follows the step: into it when it opens, back to its button when it is backed out of.
  // After the act the caller moves it (to what it says came of it: the row may be gone). A layout effect: the
  // focus moves in the commit that swaps the controls, never left on a removed one for a frame.
  const [moved, setMoved] = useState<'in' | 'out' | null>(null);
  useLayoutEffect(() => {
    if (moved === null) return;
    setMoved(null);
    (moved === 'out' ? opener.current : (field.current ?? yes.current))?.focus();
  }, [moved]);
  const unavailable = props.unavailable ?? null;
  if (!open)
    return (
      // aria-disabled, not disabled: the button stays focusable and its title says why.
      <button
        type="button"
        ref={opener}
        aria-disabled={unavailable !== null}
        title={unavailable ?? undefined}
        onClick={() => {
          if (unavailable !== null) return;
          setOpen(true);
          setMoved('in');
        }}
      >
        {props.label}
      </button>
    );
  const close = (back: boolean): void => {
    setOpen(false);
    setDraft('');
    if (back) setMoved('out');
  };
  return (
    <form
      class="confirm"
      aria-label={props.question}
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        void props
          .act(draft.trim())
          .catch(() => undefined)
          .finally(() => {
            setBusy(false);
            close(false);
          });
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) close(true);
      }}
    >
      <p>{props.question}</p>
      {props.reason ? (
        <label>
          Reason (optional)
          <input
            ref={field}
            type="text"
            maxLength={500}
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </label>
      ) : null}
      <button type="submit" ref={yes} aria-disabled={busy} class="danger">
        {props.confirm}
      </button>
      <button type="button" aria-disabled={busy} onClick={() => !busy && close(true)}>
        Keep it
      </button>
    </form>
  );
}
