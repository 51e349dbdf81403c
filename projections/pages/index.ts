/** The knowledge base's read model, its queries, the service routes and tools use, and its tools. */
export { queryTerms } from './pages.index.js';
export { pagesProjection } from './pages.projection.js';
export { containerRows, findContainer, listPages, pageDetail } from './pages.queries.js';
export {
  createPagesService,
  pagesLedger,
  type ActiveChart,
  type PagesService,
  type PageWriteResult,
} from './pages.service.js';
export { type PagesState } from './pages.state.js';
export { pagesSearch, type PagesMeaning } from './pages.search.js';
export { pageVectors, type PagesEmbedder, type PageVectors } from './pages.vectors.js';
export { knowledgeTools } from './pages.tools.js';
export { pagesListIdentity, readPagesCursor, sealPagesCursor } from './pages.cursor.js';
