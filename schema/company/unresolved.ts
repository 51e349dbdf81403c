/**
 * Warnings for `${VAR}` references that resolve to nothing: the write is stored (a secret may be put
 * afterwards), but the operator hears at once which variable is missing and where, instead of meeting a
 * nameless `no_key` on the first turn. Names and paths only, never a value.
 */
import { listReferences } from '../document/references.js';
import type { Resolver } from '../env-refs.js';
import { WarningKind, type CompanyWarning } from './problems.js';
import { yamlLines } from './yaml-lines.js';

/** `yamlText`, when the document came as YAML, gives each warning its line, as validation's findings have. */
export function unresolvedReferences(
  document: unknown,
  resolve: Resolver,
  yamlText?: string,
): CompanyWarning[] {
  const missing = listReferences(document).filter(({ name }) => (resolve(name) ?? '') === '');
  const lineOf = yamlText === undefined || missing.length === 0 ? () => undefined : yamlLines(yamlText);
  return missing.map(({ name, path, segments }) => {
    const line = lineOf(segments);
    return {
      kind: WarningKind.UnresolvedReference,
      path,
      segments,
      ...(line !== undefined && { line }),
      to: name,
      message: `\${${name}} resolves to nothing here (secret store, then environment); put it with svc secrets put ${name} or set it in the node's environment`,
    };
  });
}
