/** Rooms are reachable by URL through the hash: `#/seat/theo-park`, `#/feed?category=system`. */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  readonly room: string;
  /** Path segments after the room (`['theo-park']` for `#/seat/theo-park`). */
  readonly rest: readonly string[];
  readonly query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const body = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = body.split('?', 2);
  const [room = '', ...rest] = path.split('/').map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  return { room: room === '' ? 'overview' : room, rest, query: new URLSearchParams(search) };
}

export function href(room: string, ...rest: string[]): string {
  return `#/${[room, ...rest].map(encodeURIComponent).join('/')}`;
}

/** Moves to a route, keeping the query string in the hash (filters survive a reload). */
export function navigate(room: string, rest: readonly string[] = [], query?: URLSearchParams): void {
  const search = query && query.toString() !== '' ? `?${query.toString()}` : '';
  location.hash = `${href(room, ...rest)}${search}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
