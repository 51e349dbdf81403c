/**
 * YAML bodies: parsing with problems that name a line but quote nothing (a YAML error message can
 * echo source text, and the source may hold credentials), and the 1-based line of a document path.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { ProblemKind, type CompanyProblem, type Segment } from './problems.js';

export type YamlParse = { ok: true; value: unknown } | { ok: false; problems: CompanyProblem[] };

/** Parses one YAML (or JSON) document; problems carry the YAML error code and line only. */
export function parseCompanyYaml(text: string): YamlParse {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length === 0) return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) as unknown };
  return {
    ok: false,
    problems: doc.errors.map((error) => ({
      path: '',
      segments: [],
      kind: ProblemKind.Invalid,
      message: `YAML: ${error.code.toLowerCase().replace(/_/g, ' ')}`,
      line: lineCounter.linePos(error.pos[0]).line,
    })),
  };
}

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
