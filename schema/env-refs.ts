/**
 * `${NAME}` references (spec: Tier B document and Tier A token values). Only the braced form with
 * NAME matching `[A-Za-z_][A-Za-z0-9_]*` is substituted; bare `$NAME` and shell expansions stay as
 * they are. An unanswered reference resolves to the empty string.
 */

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Looks a name up; `undefined` means unanswered. */
export type Resolver = (name: string) => string | undefined;

/** Substitutes every `${NAME}` in `text`. */
export function substituteRefs(text: string, resolve: Resolver): string {
  return text.replace(reference, (_whole, name: string) => resolve(name) ?? '');
}

/** HTTP auth schemes a header value names before its credential (`Authorization: Bearer ${TOKEN}`). */
const authScheme = /^(?:Bearer|Basic|Token|Bot|Digest)\s+/i;
const referencesOnly = /^(?:\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/;

/**
 * True when `text` carries no literal credential: `${VAR}` references only, optionally after an HTTP
 * auth scheme. Redaction leaves such a value visible (spec write rule 7: a reference is left visible).
 *
 * @example onlyReferences('Bearer ${MCP_TOKEN}') // true; onlyReferences('ghp_${X}') // false
 */
export function onlyReferences(text: string): boolean {
  return referencesOnly.test(text.trim().replace(authScheme, ''));
}

/** Names referenced by `text`, in order of first appearance. */
export function listRefs(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(reference)) names.add(match[1] as string);
  return [...names];
}

/** Substitutes references in every string inside a parsed YAML/JSON value. */
export function substituteDeep(value: unknown, resolve: Resolver): unknown {
  if (typeof value === 'string') return substituteRefs(value, resolve);
  if (Array.isArray(value)) return value.map((item) => substituteDeep(item, resolve));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteDeep(item, resolve)]),
    );
  }
  return value;
}

/**
 * Runtime resolution order for the company document (spec): the encrypted secret store first (when a
 * keyring holds the name), then the process environment; the first that answers wins.
 */
export function chainResolvers(...resolvers: readonly Resolver[]): Resolver {
  return (name) => {
    for (const resolve of resolvers) {
      const value = resolve(name);
      if (value !== undefined) return value;
    }
    return undefined;
  };
}
