/**
 * Field primitives shared by the company document's schemas. Any string may carry `${VAR}` references
 * (spec "Tier B company document"), so format checks (URL, cron, timezone, email) apply to literal
 * values only; a value holding a reference is checked after substitution, at run time.
 */
import { z } from 'zod';
import { cutForQuote } from '../text-grammars.js';
import { ProblemKind } from './problems.js';

/** A `${NAME}` reference anywhere in the text (the grammar of env-refs.ts). */
const anyRef = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;
/** Exactly one whole-value reference, nothing around it. */
const wholeRef = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

export const hasRef = (value: string): boolean => anyRef.test(value);
export const isWholeRef = (value: string): boolean => wholeRef.test(value);

/** Refinement params that tell the problem mapper which kind a custom check reports. */
export const invalid = { params: { kind: ProblemKind.Invalid } } as const;

export const text = z.string();
export const nonEmpty = z.string().min(1);
export const strings = z.array(z.string());
export const count = z.number().int().min(0);
export const positive = z.number().int().min(1);
export const nonNegative = z.number().min(0);
export const stringMap = z.record(z.string(), z.string());
/** Free settings: the spec does not fix their keys, so any key is accepted. */
export const settingsMap = z.record(z.string(), z.record(z.string(), z.unknown()));

/** Names that appear in entity routes and tool prefixes: provider keys, tool-server names. */
export const keyPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** The longest schedule name a new write may carry (admission rule A12): a seat handle's bound. */
export const MAX_SCHEDULE_NAME = 64;
export const entityKey = z
  .string()
  .regex(keyPattern, 'must start with a letter or digit and hold only letters, digits, _ . -');

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** An HTTP header name is an RFC 9110 token: no space, colon or other separator, never empty. */
const headerToken = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * HTTP headers sent to a remote: a name or value fetch refuses would otherwise pass validation and fail
 * every connection attempt. A value with a `${VAR}` is checked again once resolved, at run time.
 */
export const headerMap = z.record(
  z.string().regex(headerToken, {
    message: "not an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)",
    ...invalid,
  }),
  z.string().refine((v) => !/[\r\n\0]/.test(v), {
    message: 'an HTTP header value holds no CR, LF or NUL',
    ...invalid,
  }),
);

export const url = z
  .string()
  .refine((v) => hasRef(v) || isHttpUrl(v), { message: 'not an http(s) URL', ...invalid });

/**
 * True when an http(s) URL is written with an empty host (`http:///mcp`, what `http://${HOST}/mcp` becomes with
 * HOST unset): `new URL` skips the slashes and reads `mcp` as the host, so it parses and fails only at connect.
 */
export const emptyHost = (value: string): boolean => /^\s*https?:[\\/]{3}/i.test(value);

/** True when `value` parses as a URL naming a user or a password (`https://user:password@host`). */
export const carriesLogin = (value: string): boolean => {
  try {
    const parsed = new URL(value);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
};

export function isTimezone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const timezone = z.string().refine((v) => hasRef(v) || isTimezone(v), {
  error: (issue) =>
    `unknown timezone ${JSON.stringify(typeof issue.input === 'string' ? cutForQuote(issue.input) : issue.input)}: not an IANA name such as Europe/Berlin`,
  ...invalid,
});

const cronMacro = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/;
const cronField = /^[0-9A-Za-z*,/?#-]+$/;
/** Jenkins' `H` (a hashed value): cron-parser draws it at random per parse, so fire times would move. */
const hashedField = /(^|[^A-Za-z])H([^A-Za-z]|$)/;

/** Shape check only (5 or 6 fields, or a macro, no `H`); admission rule A6 parses the expression fully. */
export function isCron(value: string): boolean {
  const trimmed = value.trim();
  if (cronMacro.test(trimmed)) return true;
  const fields = trimmed.split(/\s+/);
  return (
    (fields.length === 5 || fields.length === 6) &&
    fields.every((f) => cronField.test(f) && !hashedField.test(f))
  );
}

/** Why `value` is not a cron expression (the message of every refusal of one). */
export const NOT_CRON = 'not a cron expression (5 or 6 fields, or a macro such as @daily; no `H`)';

export const cron = z.string().refine((v) => hasRef(v) || isCron(v), { message: NOT_CRON, ...invalid });

export const email = z.string().refine((v) => hasRef(v) || /^[^\s@]+@[^\s@]+$/.test(v.trim()), {
  message: 'not an email address',
  ...invalid,
});
