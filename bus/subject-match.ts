import { InvalidNameError } from './errors.js';

const TOKEN = /^[^\s.*>]+$/;
const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Subjects already found valid, for filters and for plain subjects. Every publish checks its subject and a
 * node publishes on a few hundred subjects over and over: splitting and testing each again was a visible
 * part of an append. Bounded, so made-up subjects cannot grow it.
 */
const validSubjects = { filters: new Set<string>(), plain: new Set<string>() };
const VALID_SUBJECTS_MAX = 10_000;

/** Throws InvalidNameError unless `subject` is a valid subject (`allowWildcards` for filters). */
export function assertSubject(subject: string, allowWildcards: boolean): void {
  const known = allowWildcards ? validSubjects.filters : validSubjects.plain;
  if (known.has(subject)) return;
  const tokens = subject.split('.');
  const bad = (why: string): never => {
    throw new InvalidNameError(`invalid subject "${subject}": ${why}`);
  };
  if (subject.length === 0) bad('empty');
  tokens.forEach((token, i) => {
    if (token === '*' || token === '>') {
      if (!allowWildcards) bad('wildcards are not allowed here');
      if (token === '>' && i !== tokens.length - 1) bad('">" must be the last token');
      return;
    }
    if (!TOKEN.test(token)) bad(token === '' ? 'empty token' : `bad token "${token}"`);
  });
  if (known.size >= VALID_SUBJECTS_MAX) known.clear();
  known.add(subject);
}

/** Throws InvalidNameError unless `name` is a valid stream, bucket or durable name. */
export function assertName(kind: string, name: string): void {
  if (!NAME.test(name)) {
    throw new InvalidNameError(`invalid ${kind} name "${name}": use letters, digits, "_" and "-"`);
  }
}

/**
 * True when `subject` (no wildcards) matches `filter` (NATS semantics of `*` and `>`). Token by token in
 * place, without splitting: every stored message is matched against the core subscribers and consumers.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  if (filter === subject || filter === '>') return true;
  let f = 0;
  // Start of the subject's current token; -1 once the subject has no tokens left.
  let s = 0;
  for (;;) {
    let fEnd = filter.indexOf('.', f);
    if (fEnd === -1) fEnd = filter.length;
    const length = fEnd - f;
    const wildcard = length === 1 ? filter.charCodeAt(f) : 0;
    if (wildcard === 62) return s !== -1; // '>': one or more tokens left
    if (s === -1) return false;
    let sEnd = subject.indexOf('.', s);
    if (sEnd === -1) sEnd = subject.length;
    if (wildcard !== 42) {
      // Not '*': the same token.
      if (sEnd - s !== length) return false;
      for (let k = 0; k < length; k++)
        if (filter.charCodeAt(f + k) !== subject.charCodeAt(s + k)) return false;
    }
    if (fEnd === filter.length) return sEnd === subject.length;
    s = sEnd === subject.length ? -1 : sEnd + 1;
    f = fEnd + 1;
  }
}
