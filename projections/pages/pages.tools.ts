/**
 * The knowledge base's tools, one definition for seats (builtins) and for an operator's assistant
 * (`/operator/mcp`, `/operator/act/{tool}`): list containers, search, read, write (create or update)
 * and comment. Writes carry an op_id (the call's own when the arguments give none), so a retried call
 * writes once.
 */
import { z } from 'zod';
import {
  PageCommentBody,
  ContainerKey,
  OpId,
  opIdReusedDetail,
  PageBody,
  PageTitle,
  type ServiceTool,
  type ServiceToolResult,
} from '../../schema/index.js';
import { pagesListIdentity, readPagesCursor, sealPagesCursor } from './pages.cursor.js';
import { queryTerms } from './pages.index.js';
import { containerRows, findContainer, pageDetail } from './pages.queries.js';
import type { PagesService, PageWriteResult } from './pages.service.js';

const ok = (value: unknown): ServiceToolResult => ({ ok: true, value });
const no = (error: string, detail: string): ServiceToolResult => ({ ok: false, error, detail });
const readOnly = (title: string) => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});
const writes = (title: string) => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  // A write without its own op_id gets a fresh one: called twice, it writes twice.
  idempotentHint: false,
  openWorldHint: false,
});

const PageRef = z.string().trim().min(1).max(600).describe('A page id, or `CONTAINER/Title`.');

const SearchArgs = z.strictObject({
  q: z
    .string()
    .max(500)
    .optional()
    .describe(
      'What to find: pages holding every word come first; with embeddings on, pages close in meaning follow. Omitted lists pages in title order.',
    ),
  container: ContainerKey.optional().describe('Only pages of this container.'),
  parent: z
    .string()
    .max(600)
    .optional()
    .describe('Only children of this page (id or `CONTAINER/Title`), or `root`.'),
  limit: z.number().int().min(1).max(50).default(10),
  cursor: z
    .string()
    .max(2_000)
    .optional()
    .describe(
      "The previous answer's `next_cursor`, with the same q, container and parent: the next page. Omitted: the first.",
    ),
});
const ReadArgs = z.strictObject({ page: PageRef });
const WriteArgs = z.strictObject({
  page: PageRef.optional().describe('The page to update; omitted, a page is created.'),
  container: ContainerKey.optional().describe('Where a new page goes (required to create).'),
  title: PageTitle.optional().describe('Required to create; given on an update, renames.'),
  body: PageBody.optional().describe('The page body (Markdown); on an update it replaces the body whole.'),
  parent: z
    .string()
    .max(600)
    .nullable()
    .optional()
    .describe('Parent page (id or `CONTAINER/Title`); null moves to the top of the container.'),
  base_version: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Update only while the page is at this version.'),
  op_id: OpId.optional().describe('Retry handle: the same op_id never writes twice.'),
});
const CommentArgs = z.strictObject({
  page: PageRef,
  body: PageCommentBody,
  op_id: OpId.optional().describe('Retry handle: the same op_id never writes twice.'),
});

function written(result: PageWriteResult): ServiceToolResult {
  if (!result.ok) return no(result.error, result.detail);
  const { page, ok: _ok, ...rest } = result;
  return ok({
    ...rest,
    page: page && { id: page.id, container: page.container, title: page.title, version: page.version },
  });
}

export function knowledgeTools(pages: PagesService): ServiceTool[] {
  const decided = (opId: string) => pages.state().outcomes.get(opId);
  /** The page a write under `opId` acts on, as the routes find it (a retry after a rename or delete too). */
  const target = (ref: string, opId: string): { id: string } | ServiceToolResult => {
    const id = pages.target(ref, opId);
    if (id !== null) return { id };
    const first = decided(opId);
    return first
      ? no('op_id_reused', opIdReusedDetail(opId, first.gesture))
      : no('not_found', `no page ${ref}`);
  };
  const parentId = (
    ref: string | null | undefined,
    opId: string,
  ): { id: string | null | undefined } | ServiceToolResult => {
    // A decided op_id is answered its first outcome whatever the parent is now.
    if (ref === undefined || decided(opId)) return { id: undefined };
    if (ref === null || ref === 'root') return { id: null };
    const found = pages.resolve(ref);
    return found ? { id: found.id } : no('not_found', `no page ${ref} to place it under`);
  };
  /** A container key as `GET /pages` reads it: any case; one neither declared nor holding pages is refused. */
  const containerOf = (wanted: string): { key: string } | ServiceToolResult => {
    const keys = containerRows(pages.state(), pages.containers()).map((c) => c.key);
    const key = findContainer(keys, wanted);
    return key === null
      ? no('no_container', `no container ${wanted}: the org chart declares ${keys.join(', ') || 'none'}`)
      : { key };
  };
  return [
    {
      name: 'pages_containers',
      description: 'List the knowledge base containers (unit and org-wide spaces) with their page counts.',
      annotations: readOnly('List knowledge containers'),
      delivers: null,
      write: false,
      args: z.strictObject({}),
      run: () => Promise.resolve(ok(containerRows(pages.state(), pages.containers()))),
    },
    {
      name: 'pages_search',
      description:
        'Search the knowledge base: pages whose title or body hold every word of `q`, best match first (BM25, `match: "words"`); when the service has embeddings on, then pages close in meaning to `q` that lack some word (`match: "meaning"`, most similar first). Without `q`, pages in title order. Answers `{pages, total, next_cursor, order}`; pass `next_cursor` back as `cursor` for the next page.',
      annotations: readOnly('Search pages'),
      delivers: null,
      write: false,
      args: SearchArgs,
      async run(caller, raw) {
        const args = SearchArgs.parse(raw);
        // As on `GET /pages`: a q with no word is a mistake to report, not a search that finds nothing.
        if (args.q !== undefined && queryTerms(args.q).length === 0)
          return no('bad_params', '`q` needs at least one word (letters or digits), or leave it out');
        const container = args.container === undefined ? undefined : containerOf(args.container);
        if (container !== undefined && 'ok' in container) return container;
        let parent: string | undefined;
        if (args.parent !== undefined && args.parent !== 'root') {
          const found = pages.resolve(args.parent);
          if (!found) return no('not_found', `no page ${args.parent}`);
          parent = found.id;
        } else parent = args.parent;
        // The route's list and cursor: a `next_cursor` of either reads on in the other.
        const list = pagesListIdentity({ container: container?.key, parent, q: args.q });
        const cursor = readPagesCursor(args.cursor ?? null, list, args.q);
        if ('refused' in cursor)
          return no(
            'bad_params',
            `\`cursor\` ${cursor.refused}; send the previous answer's \`next_cursor\` with the same q, container and parent, or leave it out for the first page`,
          );
        // A seat's search is spent on its seat; an operator's on no seat.
        const found = await pages.list(
          {
            ...(args.q === undefined ? {} : { q: args.q }),
            ...(container === undefined ? {} : { container: container.key }),
            ...(parent === undefined ? {} : { parent }),
            ...(cursor.after === null ? {} : { after: cursor.after }),
            limit: args.limit,
          },
          caller.kind === 'seat' ? caller : null,
        );
        return ok({
          ...found,
          next_cursor: sealPagesCursor(found.next_cursor, list),
          order: args.q === undefined ? 'title' : 'relevance',
        });
      },
    },
    {
      name: 'pages_read',
      description: 'Read one page: body, comments, revisions, children and breadcrumb.',
      annotations: readOnly('Read a page'),
      delivers: null,
      write: false,
      args: ReadArgs,
      run(_caller, raw) {
        const args = ReadArgs.parse(raw);
        const page = pages.resolve(args.page);
        return Promise.resolve(
          page ? ok(pageDetail(pages.state(), page)) : no('not_found', `no page ${args.page}`),
        );
      },
    },
    {
      name: 'pages_write',
      description:
        'Create a page (give `container` and `title`) or update one (give `page`; only the fields given change). Recorded as you.',
      annotations: writes('Write a page'),
      delivers: 'knowledge_base',
      write: true,
      args: WriteArgs,
      async run(caller, raw, opts) {
        const args = WriteArgs.parse(raw);
        const opId = args.op_id ?? opts.opId;
        const parent = parentId(args.parent, opId);
        if ('ok' in parent) return parent;
        if (args.page === undefined) {
          if (args.container === undefined || args.title === undefined)
            return no(
              'bad_params',
              'creating a page needs `container` and `title` (or give `page` to update)',
            );
          if (args.base_version !== undefined)
            return no('bad_params', '`base_version` is only for an update: give `page` with it');
          return written(
            await pages.write(caller, opId, {
              type: 'create',
              container: args.container,
              title: args.title,
              body: args.body ?? '',
              parent_id: parent.id ?? null,
            }),
          );
        }
        // As on `PATCH /pages/{id}`: an update naming nothing to change, or a container (a page stays in
        // its own), is refused before anything is written rather than answered as if it had done something.
        if (args.container !== undefined)
          return no('bad_params', '`container` is only for a create: a page stays in its container');
        if (args.title === undefined && args.body === undefined && args.parent === undefined)
          return no('bad_params', 'the update changes nothing: give `title`, `body` or `parent`');
        const page = target(args.page, opId);
        if ('ok' in page) return page;
        return written(
          await pages.write(caller, opId, {
            type: 'update',
            page_id: page.id,
            ...(args.title === undefined ? {} : { title: args.title }),
            ...(args.body === undefined ? {} : { body: args.body }),
            ...(parent.id === undefined ? {} : { parent_id: parent.id }),
            ...(args.base_version === undefined ? {} : { base_version: args.base_version }),
          }),
        );
      },
    },
    {
      name: 'pages_comment',
      description: 'Comment on a page, as you; the page keeps its comments in order.',
      annotations: writes('Comment on a page'),
      delivers: 'knowledge_base',
      write: true,
      args: CommentArgs,
      async run(caller, raw, opts) {
        const args = CommentArgs.parse(raw);
        const opId = args.op_id ?? opts.opId;
        const page = target(args.page, opId);
        if ('ok' in page) return page;
        return written(
          await pages.write(caller, opId, {
            type: 'comment',
            page_id: page.id,
            body: args.body,
          }),
        );
      },
    },
  ];
}
