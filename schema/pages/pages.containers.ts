/**
 * Where pages live (ops/knowledge-base.md "Containers"): the org chart declares the containers. Each
 * unit whose `integrations.wiki.space` names a key has that container (the unit's space), and every key
 * of `knowledge.wiki_spaces` is an org-wide one. A key declared twice is one container (the unit's first).
 * Read from a parsed document without validating it, as every read does.
 */
import { isRecord, walkDocument } from '../company/walk.js';
import { ContainerKey } from './pages.records.js';

export interface Container {
  readonly key: string;
  /** The unit's name, or the key itself for an org-wide space. */
  readonly name: string;
  readonly kind: 'unit' | 'org';
  readonly unit: string | null;
}

export function containersOf(document: unknown): Container[] {
  if (!isRecord(document)) return [];
  const found = new Map<string, Container>();
  for (const unit of walkDocument(document).units) {
    const integrations = unit.raw['integrations'];
    const wiki = isRecord(integrations) ? integrations['wiki'] : undefined;
    const space = isRecord(wiki) ? wiki['space'] : undefined;
    if (typeof space !== 'string' || !ContainerKey.safeParse(space).success || found.has(space)) continue;
    found.set(space, { key: space, name: unit.name ?? space, kind: 'unit', unit: unit.name });
  }
  const knowledge = document['knowledge'];
  const spaces = isRecord(knowledge) ? knowledge['wiki_spaces'] : undefined;
  for (const space of Array.isArray(spaces) ? spaces : []) {
    if (typeof space !== 'string' || !ContainerKey.safeParse(space).success || found.has(space)) continue;
    found.set(space, { key: space, name: space, kind: 'org', unit: null });
  }
  return [...found.values()];
}
