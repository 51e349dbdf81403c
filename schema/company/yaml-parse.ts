/**
 * YAML bodies of the company document, parsed within limits so that hostile input is a problem,
 * never a crash:
 *  1. the concrete syntax tree (built without recursion) is measured first: nesting past the limit
 *     and more aliases than allowed are refused before anything recurses over the text;
 *  2. the document is composed; syntax errors carry their code and line only (a YAML message can
 *     echo source text, and the source may hold credentials);
 *  3. every alias must name an anchor defined before it and must not sit inside its own anchor
 *     (a cycle no walker can finish);
 *  4. conversion caps alias expansion (`maxAliasCount`), then the value is measured again, since an
 *     alias can graft a deep anchor under a deep key.
 */
import { CST, isAlias, LineCounter, Parser, parseDocument, visit, type Document, type Node } from 'yaml';
import { MAX_DOCUMENT_DEPTH } from '../document/depth.js';
import type { DocumentParse } from './json-parse.js';
import { nestingProblem, tooDeepMessage } from './nesting.js';
import { ProblemKind, type CompanyProblem } from './problems.js';

/** Aliases one document may hold, and the nodes they may expand to (the `yaml` package's own cap). */
export const MAX_YAML_ALIASES = 100;

export type YamlParse = DocumentParse;

const refuse = (problems: CompanyProblem[]): DocumentParse => ({ ok: false, problems });
const whole = (kind: CompanyProblem['kind'], message: string, line?: number): CompanyProblem => ({
  path: '',
  segments: [],
  kind,
  message,
  ...(line !== undefined && { line }),
});

/**
 * Parses one YAML (or JSON) document within the nesting and alias limits.
 *
 * @example parseCompanyYaml('name: Acme\n') // { ok: true, value: { name: 'Acme' } }
 */
export function parseCompanyYaml(text: string): DocumentParse {
  const lineCounter = new LineCounter();
  // 1. measure the syntax tree
  const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const measured = measureTokens(tokens);
  if (measured.tooDeepAt !== null)
    return refuse([whole(ProblemKind.OutOfRange, tooDeepMessage, lineOf(measured.tooDeepAt))]);
  if (measured.aliases > MAX_YAML_ALIASES) {
    const message = `more than ${MAX_YAML_ALIASES} aliases`;
    return refuse([whole(ProblemKind.OutOfRange, message, lineOf(measured.extraAliasAt))]);
  }
  // 2. compose
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return refuse(
      doc.errors.map((error) =>
        whole(
          ProblemKind.Invalid,
          `YAML: ${error.code.toLowerCase().replace(/_/g, ' ')}`,
          lineOf(error.pos[0]),
        ),
      ),
    );
  }
  // 3. aliases
  const aliasProblems = checkAliases(doc, lineOf);
  if (aliasProblems.length > 0) return refuse(aliasProblems);
  // 4. convert and measure the value
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (error) {
    const excessive = error instanceof ReferenceError && /alias count/i.test(error.message);
    const message = excessive
      ? `aliases expand to more than ${MAX_YAML_ALIASES} nodes`
      : 'YAML: the document cannot be converted';
    return refuse([whole(excessive ? ProblemKind.OutOfRange : ProblemKind.Invalid, message)]);
  }
  const tooDeep = nestingProblem(value, text);
  if (tooDeep !== null) return refuse([tooDeep]);
  return { ok: true, value };
}

interface Measure {
  /** Offset of the first collection nested past the limit, or null. */
  readonly tooDeepAt: number | null;
  readonly aliases: number;
  /** Offset of the first alias past the limit. */
  readonly extraAliasAt: number;
}

/** Walks the syntax tree with an explicit stack: collection depth and alias count. */
function measureTokens(tokens: CST.Token[]): Measure {
  let aliases = 0;
  let extraAliasAt = 0;
  const stack: Array<{ token: CST.Token | null | undefined; depth: number }> = tokens.map((token) => ({
    token,
    depth: 0,
  }));
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { token, depth } = item;
    if (!token) continue;
    if (token.type === 'alias' && ++aliases === MAX_YAML_ALIASES + 1) extraAliasAt = token.offset;
    if (token.type === 'document') stack.push({ token: token.value, depth });
    if (!CST.isCollection(token)) continue;
    if (depth + 1 > MAX_DOCUMENT_DEPTH) return { tooDeepAt: token.offset, aliases, extraAliasAt };
    for (const entry of token.items) {
      stack.push({ token: entry.key, depth: depth + 1 }, { token: entry.value, depth: depth + 1 });
    }
  }
  return { tooDeepAt: null, aliases, extraAliasAt };
}

/** Aliases naming no earlier anchor, or pointing at a node that contains them. Runs on a bounded tree. */
function checkAliases(doc: Document, lineOf: (offset: number) => number): CompanyProblem[] {
  const problems: CompanyProblem[] = [];
  const anchors = new Map<string, unknown>();
  const lineOfNode = (node: Node): number | undefined => (node.range ? lineOf(node.range[0]) : undefined);
  visit(doc, {
    Node(_key, node, path) {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target === undefined) {
          problems.push(
            whole(ProblemKind.Invalid, 'an alias names no anchor defined before it', lineOfNode(node)),
          );
        } else if (path.includes(target as never)) {
          problems.push(
            whole(ProblemKind.Invalid, 'an alias refers to a node that contains it', lineOfNode(node)),
          );
        }
        return;
      }
      if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return problems;
}
