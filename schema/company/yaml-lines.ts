/**
 * The 1-based line (and column) of a document path in a YAML body, for problems and warnings. The text
 * was parsed within limits first (yaml-parse.ts), so walking it here is bounded.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Segment } from './problems.js';

/** Where a node starts: 1-based line and column. */
export interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

type Lookup = (segments: readonly Segment[]) => YamlPosition | undefined;

/**
 * Line lookup for one YAML text: the line of the node at a path, else of its deepest existing
 * ancestor. The text is parsed on the first lookup only: a valid document with no warnings never pays.
 */
export function yamlLines(text: string): (segments: readonly Segment[]) => number | undefined {
  const at = yamlPositions(text);
  return (segments) => at(segments)?.line;
}

/** As `yamlLines`, with the column: a key in a flow map (`api: {port: 1, host: x}`) is told apart. */
export function yamlPositions(text: string): Lookup {
  let index: Lookup | null = null;
  return (segments) => (index ??= buildIndex(text))(segments);
}

function buildIndex(text: string): Lookup {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false });
  } catch {
    return () => undefined;
  }
  const positionAt = (offset: number | undefined): YamlPosition | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const resolve = (node: unknown): unknown => (isAlias(node) ? node.resolve(doc) : node);

  return (segments) => {
    let node = resolve(doc.contents);
    let position = positionAt((node as Node | null)?.range?.[0]);
    for (const segment of segments) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (pair === undefined) return position;
        // A key's own place reads best: that is where the operator wrote the field.
        position = positionAt((pair.key as Node).range?.[0]) ?? position;
        node = resolve(pair.value);
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = resolve(node.items[segment]);
        if (item === undefined || item === null) return position;
        position = positionAt((item as Node).range?.[0]) ?? position;
        node = item;
      } else return position;
    }
    return position;
  };
}
