/**
 * YAML bodies of the company document, parsed within limits so that hostile input is a problem,
 * never a crash:
 *  1. the text is lexed and parsed token by token, watching the parser's stack: nesting past the limit
 *     and more aliases than allowed stop it at once (a megabyte of `[` would otherwise cost seconds
 *     of parsing, then overflow the recursive composer);
 *  2. the document is composed; syntax errors carry their code and line only (a YAML message can
 *     echo source text, and the source may hold credentials), and so does a tag the parser does not
 *     know, which it would otherwise drop and keep the bare value;
 *  3. every alias must name an anchor defined before it and must not sit inside its own anchor
 *     (a cycle no walker can finish);
 *  4. conversion caps alias expansion (`maxAliasCount`), then the value is measured again, since an
 *     alias can graft a deep anchor under a deep key;
 *  5. every value must have a JSON form (the document is stored as JSON).
 */
import {
  CST,
  isAlias,
  Lexer,
  LineCounter,
  Parser,
  parseDocument,
  visit,
  type Document,
  type Node,
} from 'yaml';
import { MAX_DOCUMENT_DEPTH } from '../document/depth.js';
import type { DocumentParse } from './json-parse.js';
import { nestingProblem, tooDeepMessage } from './nesting.js';
import { pathOf, ProblemKind, type CompanyProblem, type Segment } from './problems.js';
import { yamlLines } from './yaml-lines.js';

/** Aliases one document may hold, and the nodes they may expand to (the `yaml` package's own cap). */
export const MAX_YAML_ALIASES = 100;

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
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  // 1. measure while parsing
  const limit = measure(text, lineCounter);
  if (limit !== null) return refuse([limit]);
  // 2. compose
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // An unquoted value starting with `*` (a cron: `cron: */5 * * * *`) reads as aliases, an error per `*`
    // and per word after it: one problem for that line, saying what to do (only the indicator is named,
    // never the text), and one per line and message otherwise.
    const starred = new Set(
      doc.errors.filter((error) => text.charAt(error.pos[0]) === '*').map((error) => lineOf(error.pos[0])),
    );
    const seen = new Set<string>();
    const problems: CompanyProblem[] = [];
    for (const error of doc.errors) {
      const line = lineOf(error.pos[0]);
      const message = starred.has(line)
        ? 'YAML: `*` starts an alias; quote a value that starts with `*` (a cron: "*/5 * * * *")'
        : `YAML: ${error.code.toLowerCase().replace(/_/g, ' ')}`;
      if (seen.has(`${line} ${message}`)) continue;
      seen.add(`${line} ${message}`);
      problems.push(whole(ProblemKind.Invalid, message, line));
    }
    return refuse(problems);
  }
  // 2b. tags: the parser reads a tag it does not know as its bare value (`token: !Pa55` as '', `!!int x` as
  // 'x'), so an unquoted secret starting with `!` would be stored as something else; the tag may be the
  // secret, so only its line is named
  const unknownTags = doc.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (unknownTags.length > 0) {
    return refuse(
      unknownTags.map((warning) =>
        whole(
          ProblemKind.Invalid,
          'YAML: a tag (`!name`) this document cannot hold; quote a value that starts with `!`',
          lineOf(warning.pos[0]),
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
  // 5. JSON values only: the document is stored and served as JSON
  const foreign = [...foreignValues(value, [])];
  if (foreign.length > 0) {
    const lineAt = yamlLines(text);
    return refuse(
      foreign.map(({ segments, what }) => {
        const line = lineAt(segments);
        return {
          path: pathOf(segments),
          segments,
          kind: ProblemKind.Shape,
          message: `YAML: ${what} has no JSON form; write it as a string, a number, a list or a map`,
          ...(line !== undefined && { line }),
        };
      }),
    );
  }
  return { ok: true, value };
}

/**
 * Values the YAML 1.1 tags (`!!binary`, `!!set`, `!!omap`, `!!pairs`, `!!timestamp`) and `.inf`/`.nan`
 * make, which JSON cannot hold: stored, they would turn silently into `{}`, a map of bytes, or null.
 */
function* foreignValues(value: unknown, at: Segment[]): Generator<{ segments: Segment[]; what: string }> {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) yield { segments: at, what: 'an infinite or not-a-number value' };
  } else if (typeof value === 'bigint') {
    yield { segments: at, what: 'a big integer' };
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* foreignValues(item, [...at, i]);
  } else if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      yield { segments: at, what: foreignName(value) };
      return;
    }
    for (const [key, item] of Object.entries(value)) yield* foreignValues(item, [...at, key]);
  }
}

const foreignName = (value: object): string =>
  value instanceof Uint8Array
    ? 'a binary value (!!binary)'
    : value instanceof Set
      ? 'a set (!!set)'
      : value instanceof Map
        ? 'an ordered map (!!omap)'
        : value instanceof Date
          ? 'a timestamp (!!timestamp)'
          : 'a tagged value';

/**
 * Feeds the lexer's tokens to the parser one at a time (the `yaml` package's documented way to drive
 * it) and stops at the first collection opened past the limit or the first alias past the cap. The
 * parser keeps every open collection on its stack, so the stack's collections are the nesting depth.
 */
function measure(text: string, lineCounter: LineCounter): CompanyProblem | null {
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  let aliases = 0;
  for (const lexeme of new Lexer().lex(text)) {
    const offset = parser.offset;
    if (CST.tokenType(lexeme) === 'alias' && ++aliases > MAX_YAML_ALIASES) {
      return whole(
        ProblemKind.OutOfRange,
        `more than ${MAX_YAML_ALIASES} aliases`,
        lineCounter.linePos(offset).line,
      );
    }
    for (const _ of parser.next(lexeme));
    if (parser.stack.length > MAX_DOCUMENT_DEPTH && openCollections(parser.stack) > MAX_DOCUMENT_DEPTH) {
      return whole(ProblemKind.OutOfRange, tooDeepMessage, lineCounter.linePos(offset).line);
    }
  }
  return null;
}

const openCollections = (stack: readonly CST.Token[]): number =>
  stack.reduce((n, token) => (CST.isCollection(token) ? n + 1 : n), 0);

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
