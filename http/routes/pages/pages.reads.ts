/**
 * `GET /pages`, `GET /pages/{id}` and `GET /containers` (ops/knowledge-base.md "Reads"): answered from
 * this node's projection; `{id}` is a page id or `CONTAINER/Title`.
 */
import {
  containerRows,
  findContainer,
  pageDetail,
  pagesListIdentity,
  queryTerms,
  readPagesCursor,
  sealPagesCursor,
  type PagesService,
} from '../../../projections/index.js';
import { queryRanges, SEARCH_TEXT_MAX } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { cursorRefused } from '../list-cursor.param.js';
import { intParam } from '../int-query.param.js';
import { singleParam } from '../single.param.js';

/** A container filter: declared, or still holding pages; else 404 `no_container`. */
export function containerParam(pages: PagesService, wanted: string): string {
  const keys = containerRows(pages.state(), pages.containers()).map((c) => c.key);
  const found = findContainer(keys, wanted);
  if (found === null)
    throw new ApiError('no_container', {
      detail: `No container ${wanted.length > 80 ? `${wanted.slice(0, 80)}…` : wanted}: the org chart declares ${keys.join(', ') || 'none'}.`,
    });
  return found;
}

export function notFound(ref: string): ApiError {
  return new ApiError('not_found', {
    // A long ref is cut: a refusal does not echo kilobytes back.
    detail: `No page ${ref.length > 300 ? `${ref.slice(0, 300)}…` : ref}.`,
    hint: 'Name a page by its id or as `CONTAINER/Title`; `GET /pages` lists them.',
  });
}

export async function listRoute(pages: PagesService, req: ApiRequest): Promise<ApiReply> {
  const limit = intParam(req, 'limit', queryRanges.pagesLimit);
  const q = singleParam(req, 'q', 'bad_params') ?? undefined;
  // Characters are code points: `length` would count one beyond the BMP as two.
  if (q !== undefined && ([...q].length > SEARCH_TEXT_MAX || queryTerms(q).length === 0))
    throw new ApiError('bad_params', {
      detail: `\`q\` needs at least one word and at most ${SEARCH_TEXT_MAX} characters.`,
      hint: 'Search with words from a title or body, or leave `q` out to list in title order.',
    });
  const wanted = singleParam(req, 'container', 'bad_params');
  const container = wanted === null || wanted === '' ? undefined : containerParam(pages, wanted);
  const parentRef = singleParam(req, 'parent', 'bad_params');
  let parent: string | undefined;
  if (parentRef === 'root') parent = 'root';
  else if (parentRef !== null && parentRef !== '') {
    const found = pages.resolve(parentRef);
    if (!found) throw notFound(parentRef);
    parent = found.id;
  }
  // The filters as resolved (a container's case, a parent's title or id) and the search words define
  // the list a cursor pages.
  const list = pagesListIdentity({ container, parent, q });
  const cursor = readPagesCursor(singleParam(req, 'cursor', 'bad_params'), list, q);
  if ('refused' in cursor) throw cursorRefused(cursor.refused, 'cursor', 'next_cursor');
  const after = cursor.after;
  // A request's search is spent on no seat (ops/providers.md "Embeddings").
  const found = await pages.list(
    {
      limit,
      ...(after === null ? {} : { after }),
      ...(q === undefined ? {} : { q }),
      ...(container === undefined ? {} : { container }),
      ...(parent === undefined ? {} : { parent }),
    },
    null,
  );
  return {
    status: 200,
    body: {
      ...found,
      next_cursor: sealPagesCursor(found.next_cursor, list),
      order: q === undefined ? 'title' : 'relevance',
    },
  };
}

export function pageRoute(pages: PagesService, ref: string): ApiReply {
  const page = pages.resolve(ref);
  if (!page) throw notFound(ref);
  return {
    status: 200,
    headers: { ETag: `"${page.version}"` },
    body: pageDetail(pages.state(), page),
  };
}

export function containersRoute(pages: PagesService): ApiReply {
  return {
    status: 200,
    body: {
      containers: containerRows(pages.state(), pages.containers()),
      chart_epoch: pages.chartEpoch(),
    },
  };
}
