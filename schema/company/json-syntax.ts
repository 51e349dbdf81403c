/**
 * Where JSON text breaks the grammar (RFC 8259), for a body `JSON.parse` refused: Node 20's messages carry
 * no position for most mistakes, and quote the source when they do say something. Run only after the parse
 * failed and after the nesting check, so the text is within the depth limit; the scan is a loop over the
 * text with an explicit stack, never recursion. It names a position and what the grammar wanted there,
 * never a character of the text (a body may hold a credential).
 */

/** The first syntax error: its offset in the text and what was expected there. */
interface JsonSyntaxError {
  readonly offset: number;
  /** What the grammar takes at `offset`, in words (no source text). */
  readonly expected: string;
  /** True when the text ended where more was needed. */
  readonly ended: boolean;
}

const State = {
  /** A value: at the start, after `:` and after `,` in a list. */
  Value: 0,
  /** A value or `]`: just after `[`. */
  ValueOrEnd: 1,
  /** A key or `}`: just after `{`. */
  KeyOrEnd: 2,
  /** A key: after `,` in an object. */
  Key: 3,
  /** `:` after a key. */
  Colon: 4,
  /** `,` or the container's close after one of its values. */
  Next: 5,
  /** Nothing but blanks after the top-level value. */
  Done: 6,
} as const;
type State = (typeof State)[keyof typeof State];

const expectedIn: Record<State, string> = {
  [State.Value]: 'a value (a string in double quotes, a number, true, false, null, an object or a list)',
  [State.ValueOrEnd]: 'a value or `]`',
  [State.KeyOrEnd]: 'a key (a string in double quotes) or `}`',
  [State.Key]: 'a key (a string in double quotes)',
  [State.Colon]: '`:` after the key',
  [State.Next]: '',
  [State.Done]: 'the end of the text after the document',
};

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** `" \ / b f n r t u` may follow a backslash. */
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x75]);

type Step = { end: number } | JsonSyntaxError;
const fail = (offset: number, expected: string, length: number): JsonSyntaxError => ({
  offset,
  expected,
  ended: offset >= length,
});

/** The string opening at `start` (a quote): the offset past its closing quote, or the error in it. */
function scanString(text: string, start: number): Step {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return { end: i + 1 };
    if (c < 0x20) {
      const what = c === 0x0a || c === 0x0d ? 'a line break' : 'a control character';
      return fail(i, `the string to close with \`"\` before ${what} (write it as an escape such as \\n)`, text.length); // prettier-ignore
    }
    if (c !== 0x5c) continue;
    const e = text.charCodeAt(i + 1);
    if (i + 1 >= text.length) break;
    if (!ESCAPES.has(e))
      return fail(i, 'an escape of `\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t` or `\\uXXXX`', text.length); // prettier-ignore
    if (e === 0x75) {
      for (let k = i + 2; k < i + 6; k++) {
        if (k >= text.length) return fail(k, 'the string to continue', text.length);
        if (!isHex(text.charCodeAt(k))) return fail(k, 'four hexadecimal digits in a `\\u` escape', text.length); // prettier-ignore
      }
      i += 5;
    } else i++;
  }
  return fail(text.length, 'the string to close with `"`', text.length);
}

/** The number opening at `start` (a digit or `-`): the offset past it, or the error in it. */
function scanNumber(text: string, start: number): Step {
  let i = start;
  const at = (k: number): number => (k < text.length ? text.charCodeAt(k) : -1);
  if (at(i) === 0x2d) i++;
  if (at(i) === 0x30) i++;
  else if (isDigit(at(i))) while (isDigit(at(i))) i++;
  else return fail(i, 'a digit', text.length);
  if (at(i) === 0x2e) {
    i++;
    if (!isDigit(at(i))) return fail(i, 'a digit after the decimal point', text.length);
    while (isDigit(at(i))) i++;
  }
  if (at(i) === 0x65 || at(i) === 0x45) {
    i++;
    if (at(i) === 0x2b || at(i) === 0x2d) i++;
    if (!isDigit(at(i))) return fail(i, 'a digit in the exponent', text.length);
    while (isDigit(at(i))) i++;
  }
  return { end: i };
}

const LITERALS = ['true', 'false', 'null'];

/**
 * The first syntax error in `text`, or null when the grammar takes it (then `JSON.parse` failed for
 * another reason, which it does not for any text this grammar takes).
 *
 * @example jsonSyntaxError('{"a": 1,}') // { offset: 8, expected: 'a key (a string in double quotes)', ended: false }
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  /** Open containers: true for an object, false for a list. */
  const open: boolean[] = [];
  let state: State = State.Value;
  let i = 0;
  for (;;) {
    while (i < text.length && isBlank(text.charCodeAt(i))) i++;
    if (i >= text.length) {
      if (state === State.Done) return null;
      return fail(i, open.length === 0 && state === State.Value ? 'a value' : 'more', text.length);
    }
    const c = text.charCodeAt(i);
    const inObject = open.at(-1) === true;
    switch (state) {
      case State.Done:
        return fail(i, expectedIn[State.Done], text.length);
      case State.Colon:
        if (c !== 0x3a) return fail(i, expectedIn[State.Colon], text.length);
        i++;
        state = State.Value;
        continue;
      case State.Next:
        if (c === 0x2c) {
          i++;
          state = inObject ? State.Key : State.Value;
          continue;
        }
        if (c === (inObject ? 0x7d : 0x5d)) {
          i++;
          open.pop();
          state = open.length === 0 ? State.Done : State.Next;
          continue;
        }
        return fail(i, inObject ? '`,` or `}` after a member' : '`,` or `]` after an item', text.length);
      case State.KeyOrEnd:
      case State.Key: {
        if (c === 0x7d && state === State.KeyOrEnd) {
          i++;
          open.pop();
          state = open.length === 0 ? State.Done : State.Next;
          continue;
        }
        if (c !== 0x22) return fail(i, expectedIn[state], text.length);
        const key = scanString(text, i);
        if (!('end' in key)) return key;
        i = key.end;
        state = State.Colon;
        continue;
      }
      case State.ValueOrEnd:
      case State.Value: {
        if (c === 0x5d && state === State.ValueOrEnd) {
          i++;
          open.pop();
          state = open.length === 0 ? State.Done : State.Next;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          open.push(c === 0x7b);
          i++;
          state = c === 0x7b ? State.KeyOrEnd : State.ValueOrEnd;
          continue;
        }
        let step: Step;
        if (c === 0x22) step = scanString(text, i);
        else if (c === 0x2d || isDigit(c)) step = scanNumber(text, i);
        else {
          const word = LITERALS.find((w) => text.startsWith(w, i));
          step = word ? { end: i + word.length } : fail(i, expectedIn[state], text.length);
        }
        if (!('end' in step)) return step;
        i = step.end;
        state = open.length === 0 ? State.Done : State.Next;
        continue;
      }
    }
  }
}

/** 1-based line and column (in characters, a pair of surrogates one) of an offset; lines end at `\n`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by its low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < offset) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    column++;
  }
  return { line, column };
}
