/**
 * JSON bodies of the company document: nesting is measured on the raw text before `JSON.parse`, and a
 * problem names a line (and for a syntax error its column), never the text (the engine's own message
 * quotes the source, which may hold a credential).
 */
import { jsonTextDepthBeyond, MAX_DOCUMENT_DEPTH } from '../document/depth.js';
import { firstRepeatedKey } from './json-keys.js';
import { jsonSyntaxError, lineColumnAt } from './json-syntax.js';
import { tooDeepMessage } from './nesting.js';
import { pathOf, ProblemKind, type CompanyProblem } from './problems.js';

export type DocumentParse = { ok: true; value: unknown } | { ok: false; problems: CompanyProblem[] };

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Parses one JSON document within the nesting limit.
 *
 * @example parseCompanyJson('{"name": "Acme"}') // { ok: true, value: { name: 'Acme' } }
 */
export function parseCompanyJson(text: string): DocumentParse {
  const beyond = jsonTextDepthBeyond(text, MAX_DOCUMENT_DEPTH);
  if (beyond !== null) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          segments: [],
          kind: ProblemKind.OutOfRange,
          message: tooDeepMessage,
          line: lineAt(text, beyond),
        },
      ],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, problems: [syntaxProblem(text)] };
  }
  const repeated = repeatedKeyProblem(text);
  return repeated === null ? { ok: true, value } : { ok: false, problems: [repeated] };
}

/**
 * The problem of text `JSON.parse` refused: the line and column of the first syntax error and what the
 * grammar expected there (json-syntax.ts), never the engine's message, which quotes the source.
 */
function syntaxProblem(text: string): CompanyProblem {
  const error = jsonSyntaxError(text);
  const at = error === null ? null : lineColumnAt(text, error.offset);
  const message =
    error === null
      ? 'JSON: not parseable'
      : error.ended
        ? text.trim() === ''
          ? 'JSON: the text ends before any value (the body is empty)'
          : 'JSON: the text ends inside the document'
        : `JSON: not parseable: expected ${error.expected}`;
  return { path: '', segments: [], kind: ProblemKind.Invalid, message, ...(at ?? {}) };
}

/**
 * The first key repeated within one object of `text` (valid JSON, already parsed) as a problem at its
 * path and line, or null. It names the key, never a value (values may be credentials).
 *
 * @example repeatedKeyProblem('{"a": 1, "a": 2}') // { path: 'a', kind: 'invalid', line: 1, ... }
 */
export function repeatedKeyProblem(text: string): CompanyProblem | null {
  const repeated = firstRepeatedKey(text);
  if (repeated === null) return null;
  return {
    path: pathOf(repeated.segments),
    segments: repeated.segments,
    kind: ProblemKind.Invalid,
    message: 'JSON: a key appears twice in one object (the first value would be lost)',
    line: lineAt(text, repeated.offset),
  };
}
