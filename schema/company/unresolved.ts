/**
 * Warnings for `${VAR}` references that resolve to nothing: the write is stored (a secret may be put
 * afterwards), but the operator hears at once which variable is missing and where, instead of meeting a
 * nameless `no_key` on the first turn. Names and paths only, never a value.
 */
import { listReferences } from '../document/references.js';
import type { Resolver } from '../env-refs.js';
import { WarningKind, type CompanyWarning } from './problems.js';

export function unresolvedReferences(document: unknown, resolve: Resolver): CompanyWarning[] {
  return listReferences(document)
    .filter(({ name }) => (resolve(name) ?? '') === '')
    .map(({ name, path, segments }) => ({
      kind: WarningKind.UnresolvedReference,
      path,
      segments,
      to: name,
      message: `\${${name}} resolves to nothing here (secret store, then environment); put it with svc secrets put ${name} or set it in the node's environment`,
    }));
}
