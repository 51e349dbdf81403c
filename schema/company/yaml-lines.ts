/**
 * The 1-based line of a document path in a YAML body, for problems and warnings. The text was
 * parsed within limits first (yaml-parse.ts), so walking it here is bounded.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Segment } from './problems.js';

/**
 * Line lookup for one YAML text: the line of the node at a path, else of its deepest existing
 * ancestor. The text is parsed on the first lookup only: a valid document with no warnings never pays.
 */
export function yamlLines(text: string): (segments: readonly Segment[]) => number | undefined {
  let index: ((segments: readonly Segment[]) => number | undefined) | null = null;
  return (segments) => (index ??= buildIndex(text))(segments);
}

function buildIndex(text: string): (segments: readonly Segment[]) => number | undefined {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false });
  } catch {
    return () => undefined;
  }
  const lineAt = (offset: number | undefined): number | undefined =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  const resolve = (node: unknown): unknown => (isAlias(node) ? node.resolve(doc) : node);

  return (segments) => {
    let node = resolve(doc.contents);
    let line = lineAt((node as Node | null)?.range?.[0]);
    for (const segment of segments) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (pair === undefined) return line;
        // A key's own line reads best: that is where the operator wrote the field.
        line = lineAt((pair.key as Node).range?.[0]) ?? line;
        node = resolve(pair.value);
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = resolve(node.items[segment]);
        if (item === undefined || item === null) return line;
        line = lineAt((item as Node).range?.[0]) ?? line;
        node = item;
      } else return line;
    }
    return line;
  };
}
