/** Every `${VAR}` a document names, with where (the `/config/references` route). */
import { isRecord, type Segment } from './json.js';
import { formatPath } from './paths.js';

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function listReferences(doc: unknown): Array<{ name: string; path: string; segments: Segment[] }> {
  const out: Array<{ name: string; path: string; segments: Segment[] }> = [];
  const walk = (value: unknown, segments: Segment[]): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(reference))
        out.push({ name: match[1] as string, path: formatPath(segments), segments });
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, i]));
    else if (isRecord(value))
      for (const [key, child] of Object.entries(value)) walk(child, [...segments, key]);
  };
  walk(doc, []);
  return out;
}
