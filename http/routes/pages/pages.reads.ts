/**
 * `GET /pages`, `GET /pages/{id}` and `GET /containers` (ops/knowledge-base.md "Reads"): answered from
 * this node's projection; `{id}` is a page id or `CONTAINER/Title`.
 */
import { z } from 'zod';
import {
  containerRows,
  findContainer,
  pageDetail,
  queryTerms,
  searchFingerprint,
  type PagesService,
  type SearchPosition,
} from '../../../projections/index.js';
import { decodeCursor, listIdentity, ListOrder, queryRanges, unsealCursor } from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiReply, ApiRequest } from '../../types.js';
import { cursorParam, cursorRefused, sealNext } from '../list-cursor.param.js';
import { intParam } from '../int-query.param.js';
import { singleParam } from '../single.param.js';

const Q_MAX_CHARS = 500;
const TitleKey = z.tuple([z.string(), z.string()]);
const Score = z.number();

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

/**
 * A search's cursor: a word hit's (`pages.relevance`) or a meaning hit's (`pages.meaning`), bound to the
 * list and to the search's words.
 */
function searchCursor(req: ApiRequest, list: string, q: string): SearchPosition | null {
  const raw = singleParam(req, 'cursor', 'bad_params');
  const sealed = raw === null || raw === '' ? null : unsealCursor(raw, list);
  const meaning =
    sealed !== null && typeof sealed === 'object'
      ? decodeCursor(sealed.token, ListOrder.PagesMeaning, Score)
      : null;
  // Anything but a meaning hit's cursor is read as a word hit's, which refuses what is neither.
  const after: SearchPosition | null =
    meaning !== null && typeof meaning === 'object'
      ? { ...meaning, part: 'meaning' }
      : cursorParam(req, ListOrder.PagesRelevance, Score, list, 'cursor', 'next_cursor');
  // A search cursor ranks by its own words: with other words it would start at an unrelated place.
  if (after !== null && after.fingerprint !== searchFingerprint(q))
    throw cursorRefused('was made for a search with other words', 'cursor', 'next_cursor');
  return after;
}

export async function listRoute(pages: PagesService, req: ApiRequest): Promise<ApiReply> {
  const limit = intParam(req, 'limit', queryRanges.pagesLimit);
  const q = singleParam(req, 'q', 'bad_params') ?? undefined;
  // Characters are code points: `length` would count one beyond the BMP as two.
  if (q !== undefined && ([...q].length > Q_MAX_CHARS || queryTerms(q).length === 0))
    throw new ApiError('bad_params', {
      detail: `\`q\` needs at least one word and at most ${Q_MAX_CHARS} characters.`,
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
  const list = listIdentity('/pages', {
    container,
    parent,
    words: q === undefined ? undefined : searchFingerprint(q),
  });
  const after =
    q === undefined
      ? cursorParam(req, ListOrder.PagesTitle, TitleKey, list, 'cursor', 'next_cursor')
      : searchCursor(req, list, q);
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
      next_cursor: sealNext(found.next_cursor, list),
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
