/** Route table: patterns compiled once, matched by segment; answers a route, an `Allow` list, or nothing. */
import type { Method, RouteDef, RouteKind } from './types.js';

export interface CompiledRoute {
  readonly def: RouteDef;
  readonly method: Method;
  readonly pattern: string;
  readonly kind: RouteKind;
  readonly listener: 'api' | 'public';
  /** Literal segment, `:name` parameter, or a final `*`. */
  readonly segments: readonly string[];
  readonly wildcard: boolean;
}

export type Match =
  | { readonly found: true; readonly route: CompiledRoute; readonly params: Record<string, string> }
  | {
      readonly found: false;
      readonly allow: readonly string[];
      /** The pattern of the first route that serves the path under another method (absent when none does). */
      readonly pattern?: string;
      /** What a route whose pattern matched but whose `serves` refused the path says it serves instead. */
      readonly hint?: string;
    };

const publicPrefixes = ['/webhooks/', '/otlp/', '/mcp/'];

/** The spec's public paths: served only on `api.public.port` when it is set. */
export const isPublicPath = (path: string): boolean => publicPrefixes.some((p) => path.startsWith(p));

export function compileRoute(def: RouteDef): CompiledRoute {
  if (!def.pattern.startsWith('/')) throw new TypeError(`route pattern must start with '/': ${def.pattern}`);
  const segments = def.pattern.split('/').slice(1);
  const wildcard = segments[segments.length - 1] === '*';
  if (segments.slice(0, -1).includes('*')) throw new TypeError(`'*' only ends a pattern: ${def.pattern}`);
  return {
    def,
    method: def.method,
    pattern: def.pattern,
    kind: def.kind ?? (def.pattern.startsWith('/webhooks/') ? 'webhook' : 'api'),
    listener: def.listener ?? (isPublicPath(def.pattern) ? 'public' : 'api'),
    segments: wildcard ? segments.slice(0, -1) : segments,
    wildcard,
  };
}

/**
 * Whether HEAD is served on a route: every GET but those of webhooks and landing pages, whose GET may act (a
 * verification challenge, an install code taken; a link checker's HEAD must not), and those that opt out.
 */
const headable = (r: CompiledRoute): boolean =>
  r.method === 'GET' && r.def.head !== false && r.kind !== 'landing' && r.kind !== 'webhook';

/** `Allow` lists methods in one order whichever routes declare them (the spec's `Allow: GET, PUT`). */
const methodOrder: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Literal segments outrank parameters, which outrank a wildcard; compared left to right. */
function specificity(a: CompiledRoute, b: CompiledRoute): number {
  const rank = (s: string | undefined): number => (s === undefined ? 0 : s.startsWith(':') ? 1 : 2);
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const d = rank(b.segments[i]) - rank(a.segments[i]);
    if (d !== 0) return d;
  }
  return Number(a.wildcard) - Number(b.wildcard);
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function matchSegments(route: CompiledRoute, parts: readonly string[]): Record<string, string> | null {
  if (route.wildcard ? parts.length <= route.segments.length : parts.length !== route.segments.length)
    return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const seg = route.segments[i]!;
    const part = parts[i]!;
    if (seg.startsWith(':')) {
      const value = decode(part);
      if (value === null || value === '') return null;
      params[seg.slice(1)] = value;
    } else if (seg !== part) return null;
  }
  if (route.wildcard) {
    const rest = parts.slice(route.segments.length).map(decode);
    if (rest.some((r) => r === null) || rest.join('') === '') return null;
    params['*'] = rest.join('/');
  }
  return params;
}

/** A pattern's first segment when it is literal; null when any first segment may match (`:id`, `/*`). */
const literalFirst = (r: CompiledRoute): string | null => {
  const first = r.segments[0];
  return first === undefined || first.startsWith(':') ? null : first;
};

export class RouteTable {
  private readonly exact = new Map<string, CompiledRoute[]>();
  private readonly dynamic: CompiledRoute[] = [];
  /**
   * The dynamic routes a path's first segment can reach, in specificity order: a route whose literal first
   * segment differs never matches, so a request tries a handful of patterns rather than all of them.
   */
  private readonly byFirst = new Map<string, readonly CompiledRoute[]>();
  private readonly anyFirst: readonly CompiledRoute[];

  constructor(routes: readonly CompiledRoute[]) {
    for (const r of routes) {
      const isStatic = !r.wildcard && !r.segments.some((s) => s.startsWith(':'));
      if (isStatic) {
        const list = this.exact.get(r.pattern) ?? [];
        if (list.some((o) => o.method === r.method))
          throw new TypeError(`duplicate route ${r.method} ${r.pattern}`);
        this.exact.set(r.pattern, [...list, r]);
      } else {
        this.dynamic.push(r);
      }
    }
    this.dynamic.sort(specificity);
    this.anyFirst = this.dynamic.filter((r) => literalFirst(r) === null);
    for (const r of this.dynamic) {
      const first = literalFirst(r);
      if (first !== null && !this.byFirst.has(first))
        this.byFirst.set(
          first,
          this.dynamic.filter((o) => literalFirst(o) === first || literalFirst(o) === null),
        );
    }
  }

  get size(): number {
    return this.dynamic.length + [...this.exact.values()].reduce((n, l) => n + l.length, 0);
  }

  /**
   * The route for `method` on `path` (HEAD takes a GET route's, answered without its body); otherwise the
   * methods the path is served under (empty: unserved).
   */
  match(method: string, path: string): Match {
    const exact = this.exact.get(path);
    const allow = new Set<string>();
    const serves = (r: CompiledRoute): boolean => r.method === method || (method === 'HEAD' && headable(r));
    // `Allow` names the methods routes declare: the spec's own example is `Allow: GET, PUT` for a path
    // whose GET also answers HEAD.
    let pattern: string | undefined;
    const note = (r: CompiledRoute): void => {
      allow.add(r.method);
      pattern ??= r.pattern;
    };
    if (exact) {
      for (const r of exact) {
        if (serves(r)) return { found: true, route: r, params: {} };
        note(r);
      }
    }
    let hint: string | undefined;
    if (this.dynamic.length > 0) {
      const parts = path.split('/').slice(1);
      for (const r of this.byFirst.get(parts[0]!) ?? this.anyFirst) {
        const params = matchSegments(r, parts);
        if (params === null) continue;
        if (r.def.serves?.(params) === false) {
          hint ??= r.def.unservedHint;
          continue;
        }
        if (serves(r)) return { found: true, route: r, params };
        note(r);
      }
    }
    return {
      found: false,
      allow: [...allow].sort((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b)),
      ...(pattern !== undefined ? { pattern } : {}),
      ...(hint !== undefined && allow.size === 0 ? { hint } : {}),
    };
  }
}
