/**
 * The nesting limit as a company-document problem: one message and one problem shape for the JSON
 * and YAML parsers, the gateway and validation.
 */
import { depthBeyond, MAX_DOCUMENT_DEPTH } from '../document/depth.js';
import { pathOf, ProblemKind, type CompanyProblem } from './problems.js';
import { yamlLines } from './yaml-lines.js';

export const tooDeepMessage = `nested deeper than ${MAX_DOCUMENT_DEPTH} levels of maps and lists`;

/**
 * The problem of a document nested past the limit, at the first container beyond it; null within it.
 * Iterative, so safe on any input.
 *
 * @example nestingProblem(JSON.parse(body))?.path // 'extensions.x.a.a…'
 */
export function nestingProblem(document: unknown, yamlText?: string): CompanyProblem | null {
  const segments = depthBeyond(document, MAX_DOCUMENT_DEPTH);
  if (segments === null) return null;
  const line = yamlText === undefined ? undefined : yamlLines(yamlText)(segments);
  return {
    path: pathOf(segments),
    segments,
    kind: ProblemKind.OutOfRange,
    message: tooDeepMessage,
    ...(line !== undefined && { line }),
  };
}
