import { InvalidNameError } from './errors.js';

const TOKEN = /^[^\s.*>]+$/;
const NAME = /^[A-Za-z0-9_-]+$/;

/** Throws InvalidNameError unless `subject` is a valid subject (`allowWildcards` for filters). */
export function assertSubject(subject: string, allowWildcards: boolean): void {
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
}

/** Throws InvalidNameError unless `name` is a valid stream, bucket or durable name. */
export function assertName(kind: string, name: string): void {
  if (!NAME.test(name)) {
    throw new InvalidNameError(`invalid ${kind} name "${name}": use letters, digits, "_" and "-"`);
  }
}

/** True when `subject` (no wildcards) matches `filter` (NATS semantics of `*` and `>`). */
export function subjectMatches(filter: string, subject: string): boolean {
  if (filter === subject || filter === '>') return true;
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    const token = f[i];
    if (token === '>') return s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return f.length === s.length;
}
