/**
 * The dashboard's configuration questions on the query channel (spec "Configuration routes": `config`,
 * `config_diff`, `config_entities`), answered from the same read model and the same redaction as the
 * `/config*` routes, and guarded as they are.
 *
 * - `config` (`revision`: an id, default the active one): `{revision_id, epoch, is_active, created_at,
 *   summary, document, yaml}`, the document redacted.
 * - `config_diff` (`to`: an id, default the active one; `from`: an id or `active`, default `to`'s parent):
 *   `{from, to, changes, changes_total}` as `GET /config/revisions/{id}/diff`.
 * - `config_entities` (`kind`: `roles`, `units`, `llm-providers` or `mcp-servers`, default all four):
 *   `{revision_id, entities[{kind, id, path, value}]}` of the active revision, each value redacted.
 */
import { stringify } from 'yaml';
import { metaOf, type ConfigState } from '../../../projections/index.js';
import {
  cutForQuote,
  formatPath,
  isSecretPath,
  listEntities,
  redact,
  type EntityKind,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { Question } from '../query.routes.js';
import {
  assertRenderable,
  diffRevisions,
  entityKinds,
  readable,
  requireActive,
  revisionById,
  tryOpen,
  unopenable,
  type ConfigReadDeps,
} from './config.reads.js';

async function revisionOrActive(state: ConfigState, id: string | null) {
  return id === null || id === '' || id === 'active' ? requireActive(state) : revisionById(state, id);
}

function entityKindParam(raw: string | null): readonly EntityKind[] {
  if (raw === null || raw === '') return entityKinds;
  if ((entityKinds as readonly string[]).includes(raw)) return [raw as EntityKind];
  throw new ApiError('bad_params', {
    detail: `kind must be one of ${entityKinds.join(', ')}, got ${JSON.stringify(cutForQuote(raw))}`,
    hint: 'Leave kind out for every entity kind.',
  });
}

export function configQuestions(deps: ConfigReadDeps): Map<string, Question> {
  return new Map<string, Question>([
    [
      'config',
      {
        guarded: true,
        params: ['revision'],
        async answer(params) {
          const state = deps.state();
          const record = await revisionOrActive(state, params.get('revision'));
          const meta = metaOf(state, record);
          const document = readable(deps, record);
          return { ...meta, document, yaml: stringify(document) };
        },
      },
    ],
    [
      'config_diff',
      {
        guarded: true,
        params: ['from', 'to'],
        async answer(params) {
          const state = deps.state();
          const to = await revisionOrActive(state, params.get('to'));
          const fromId = params.get('from') ?? to.parent_revision_id ?? 'active';
          const from = await revisionOrActive(state, fromId);
          return diffRevisions(deps, from, to);
        },
      },
    ],
    [
      'config_entities',
      {
        guarded: true,
        params: ['kind'],
        answer(params) {
          const kinds = entityKindParam(params.get('kind'));
          const record = requireActive(deps.state());
          const document = tryOpen(deps, record);
          if (document === unopenable) return { revision_id: record.revision_id, entities: [] };
          assertRenderable(record, document);
          const entities = kinds.flatMap((kind) =>
            listEntities(document, kind).map(({ id, value, segments }) => ({
              kind,
              id,
              path: formatPath(segments),
              value: redact(value, (inner) => isSecretPath([...segments, ...inner])),
            })),
          );
          return { revision_id: record.revision_id, entities };
        },
      },
    ],
  ]);
}
