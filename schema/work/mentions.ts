/**
 * The one reader of `@handle` mentions in the tracker's text (ops/work-tracker.md "Events and wakes"):
 * the wakes a comment sets off, the inbox's `mentioned` reason, activity's `notified` filter and the
 * per-person index all read a body through it, so the same text mentions the same seats wherever it is
 * read. A handle's grammar is `[a-z0-9][a-z0-9-]*`; a mention is matched without regard to case, and
 * `@` inside a word or an address (`ada@example.com`, `x@y`) names nobody.
 */
const MENTION = /(?<![\w@.-])@([a-z0-9][a-z0-9-]*)/gi;

/** The handles `body` mentions, lower-cased, each once, in order of first mention. */
export function mentionsIn(body: string): string[] {
  const found = new Set<string>();
  // A hyphen ending the match is punctuation (`@ada-`), not part of the handle.
  for (const match of body.matchAll(MENTION)) found.add(match[1]!.toLowerCase().replace(/-+$/, ''));
  found.delete('');
  return [...found];
}
