/**
 * Prose the company document may make any length (a mission, a policy, a seat's goal): past `limit`
 * characters it is shown cut, with a button that opens the whole text in a box of its own, so a
 * 100,000-character goal does not push the rest of the room tens of thousands of pixels down.
 */
import { useState } from 'preact/hooks';
import { clip } from './format.js';

export function LongText(props: {
  text: string;
  /** What the text is, for the button's name ("the mission"). */
  what: string;
  limit?: number;
}) {
  const limit = props.limit ?? 600;
  const [open, setOpen] = useState(false);
  const { text } = props;
  // Counted by code points, as `clip` cuts (a UTF-16 length over the limit may still fit).
  const chars = text.length <= limit ? text.length : Array.from(text).length;
  if (chars <= limit) return <>{text}</>;
  return (
    <>
      {open ? (
        // A region that scrolls takes the focus, so a keyboard can scroll it.
        <span class="long-text open" tabIndex={0} role="region" aria-label={`the whole of ${props.what}`}>
          {text}
        </span>
      ) : (
        <span class="long-text">{clip(text, limit)}</span>
      )}{' '}
      <button type="button" class="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open
          ? `Show less of ${props.what}`
          : `Show all ${chars.toLocaleString('en')} characters of ${props.what}`}
      </button>
    </>
  );
}
