/**
 * The seat room's picker: a native select (a combobox to assistive technology) whose arrow keys and
 * type-ahead move the choice without opening it; Enter opens the chosen seat, as does a pick from the open
 * list with the mouse or the keyboard. Chromium fires `change` on every arrow press on a closed select, so a
 * change in the same task as a key press on the select itself only moves the choice; the open list's pick
 * arrives in a later task, with no key press on the select (the open list takes the keys).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { OrgSeat } from '../live/types.js';
import { href } from '../router.js';

export function SeatPicker(props: { handle: string; seats: OrgSeat[]; known: boolean; unread: boolean }) {
  const { handle, seats } = props;
  const [choice, setChoice] = useState(handle);
  const keyed = useRef(false);
  // Another seat opened (a link, the history): the picker shows it.
  useEffect(() => setChoice(handle), [handle]);
  const open = (to: string): void => {
    if (to !== handle) location.hash = href('seat', to);
  };
  return (
    <>
      <label class="picker">
        Seat
        <select
          value={choice}
          aria-describedby="seat-picker-hint"
          onKeyDown={(e) => {
            if (e.key === 'Enter' && choice !== handle) {
              e.preventDefault();
              open(choice);
              return;
            }
            // The change a key makes fires in this same task; a key that opens the list (Alt+Down, Space)
            // leaves the pick to a later one, and the open list's keys reach neither keydown nor keyup here.
            keyed.current = true;
            setTimeout(() => (keyed.current = false), 0);
          }}
          onChange={(e) => {
            const to = e.currentTarget.value;
            setChoice(to);
            if (!keyed.current) open(to);
          }}
          // Leaving the picker opens nothing and shows the open seat again, not a choice left half-made.
          onBlur={() => setChoice(handle)}
        >
          {/* A handle the company lacks is shown as chosen, so choosing any seat, the first too, opens it. */}
          {handle !== '' && !props.known && !props.unread ? (
            <option value={handle} disabled>
              {handle} (not in this company)
            </option>
          ) : null}
          {seats.map((s) => (
            <option key={s.handle} value={s.handle}>
              {s.name} ({s.kind})
            </option>
          ))}
        </select>
      </label>
      {/* Outside the label, so it describes the picker without joining its name. */}
      <span id="seat-picker-hint" class="visually-hidden">
        Arrow keys choose a seat, Enter opens it.
      </span>
    </>
  );
}
