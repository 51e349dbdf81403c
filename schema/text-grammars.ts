/**
 * The text grammars of values a route refuses by their shape alone, held once: the node checks a value by its
 * grammar here, and `svc` checks the flag that sends it against the same grammar before asking (exit 2,
 * nothing sent), so the two cannot drift apart. Plain values: a client command loads this file without zod.
 */

/** How much of a sender's value an answer, a page or a log line quotes back (an id, a name, a path segment). */
export const QUOTED_MAX = 80;

/** `text` cut to its first QUOTED_MAX characters (code points: a pair is never split), marked `…`. */
export function cutForQuote(text: string): string {
  if (text.length <= QUOTED_MAX) return text;
  const chars = Array.from(text);
  return chars.length > QUOTED_MAX ? `${chars.slice(0, QUOTED_MAX).join('')}…` : text;
}

/** A UUID in any case (RFC 9562: the hex digits carry no case); ids are minted in lower case. */
const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An id as given, made the id as minted: a UUID in upper or mixed case is lowered, so it names what the
 * lower-case one does; anything else (a key, a `CONTAINER/Title`) is left as it is.
 */
export const canonicalId = (ref: string): string => (uuidShape.test(ref) ? ref.toLowerCase() : ref);

/** Spec "Limits": a retry handle (`op_id`) is at most 128 bytes of visible ASCII. */
export const OP_ID_MAX_BYTES = 128;
const visibleAscii = /^[\x21-\x7e]+$/;

/** True when `value` may be an `op_id` (answers 400 `op_id_invalid` otherwise). */
export const isOpId = (value: string): boolean =>
  value.length > 0 && value.length <= OP_ID_MAX_BYTES && visibleAscii.test(value);

/** Which rule `value` breaks as an `op_id`, said for a refusal's detail; null when it is one. */
export function opIdProblem(value: string): string | null {
  if (value.length === 0) return 'op_id is empty; it must be 1 to 128 bytes of visible ASCII';
  const chars = Array.from(value);
  const at = chars.findIndex((c) => !visibleAscii.test(c));
  if (at >= 0) {
    const ch = chars[at]!;
    const byte = new TextEncoder().encode(chars.slice(0, at).join('')).length + 1;
    const name =
      ch === ' ' ? 'a space' : `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `op_id holds ${name} at byte ${byte}; only visible ASCII (! to ~) is allowed`;
  }
  return value.length > OP_ID_MAX_BYTES ? `op_id is ${value.length} bytes; at most ${OP_ID_MAX_BYTES}` : null;
}

/** A work project's key: an upper-case letter, then 1 to 9 upper-case letters or digits. */
export const PROJECT_KEY = /^[A-Z][A-Z0-9]{1,9}$/;

/** A person named to the work routes (`?handle=`, an assignee), after lower-casing: a seat handle. */
export const PERSON_HANDLE = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Where a stored secret's value came from (`?source=`): `api` (default), `cli`, `setup`, ... */
export const SECRET_SOURCE = /^[a-z][a-z0-9._:-]{0,63}$/;

/** A pause's or resume's `reason`, in characters. */
export const SEAT_REASON_MAX = 600;

/**
 * A control character (C0, DEL, C1), or a UTF-16 surrogate without its pair (with `u` a pair is one code
 * point). Checked before trimming, so a tab or a NEL at either end is refused rather than cut off.
 */
const controlOrLoneSurrogate = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/u;

/** True when `s` holds a control character or a lone surrogate (a title refuses both, anywhere). */
export const hasControlOrLoneSurrogate = (s: string): boolean => controlOrLoneSurrogate.test(s);

/**
 * U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: line breaks that are not control characters, which
 * `trim()` would cut off a title's ends unsaid while a `\n` there is refused.
 */
const lineOrParagraphSeparator = /[\u2028\u2029]/;

/**
 * True when `s` is not one line: a control character (a tab, `\n`, `\r`, `\v`, `\f`, NEL...), U+2028 or
 * U+2029 anywhere, or a lone surrogate. What a title, and a write's name or line of text, refuses.
 */
export const breaksLine = (s: string): boolean =>
  hasControlOrLoneSurrogate(s) || lineOrParagraphSeparator.test(s);

/**
 * A character a reader sees: not whitespace, not a format character (zero-width space, joiners, word joiner,
 * BOM, soft hyphen), not one that renders as nothing (Default_Ignorable_Code_Point: fillers, variation
 * selectors), not a combining mark (with nothing to mark).
 */
const visibleCharacter = /[^\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}]/u;

/** True when `s` shows something: a title made only of invisible characters is as empty as a blank one. */
export const hasVisibleCharacter = (s: string): boolean => visibleCharacter.test(s);

/** A NUL or a lone surrogate: what a body (a comment, a description, a page) refuses; tabs and line breaks stay. */
const nulOrLoneSurrogate = /[\u0000\ud800-\udfff]/u;

/** True when `s` holds a NUL or a lone surrogate (a body refuses both, anywhere). */
export const hasNulOrLoneSurrogate = (s: string): boolean => nulOrLoneSurrogate.test(s);

/** A work item's title, in characters once trimmed. */
export const ITEM_TITLE_MAX = 300;
/** A knowledge-base page's title, in characters once trimmed. */
export const PAGE_TITLE_MAX = 255;

/**
 * True when `title` is one line a write may send: no control character, U+2028/U+2029 or lone surrogate
 * (`breaksLine`), at least one visible character, at most `max` characters once trimmed.
 */
export const isTitle = (title: string, max: number): boolean => {
  const trimmed = title.trim();
  return !breaksLine(title) && hasVisibleCharacter(trimmed) && trimmed.length <= max;
};
