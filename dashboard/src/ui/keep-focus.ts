/**
 * A keyboard user's place across a live update: when an update takes away the element that held the focus (a
 * feed row pushed off its page, a Show all button of a list grown short), the browser drops the focus to the
 * page, and the next Tab starts from the top. The rooms hand it to a neighbour instead.
 */
import type { RefObject } from 'preact';
import { useLayoutEffect } from 'preact/hooks';

/**
 * Whichever element inside `within` holds the focus as the component renders (the update not yet in the
 * page): once the update is in, if that element has gone and the focus fell to the page, `neighbour()` takes
 * it. A focus the user moved elsewhere meanwhile is left where it is.
 */
export function useFocusKept(
  within: RefObject<HTMLElement | null>,
  neighbour: () => HTMLElement | null | undefined,
): void {
  const active = document.activeElement;
  const held = active instanceof HTMLElement && within.current?.contains(active) === true ? active : null;
  useLayoutEffect(() => {
    if (held === null || held.isConnected) return;
    const now = document.activeElement;
    if (now !== null && now !== document.body) return;
    neighbour()?.focus();
  });
}

/**
 * The heading of the card `el` sits in (its `h2`), made focusable from script alone: a list's neighbour when
 * what held the focus in it has gone.
 */
export function cardHeading(el: Element | null | undefined): HTMLElement | null {
  const heading = el?.closest('section')?.querySelector<HTMLElement>(':scope > h2') ?? null;
  if (heading !== null && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
  return heading;
}
