/** The knowledge base's read model, its queries, the service routes and tools use, and its tools. */
export { queryTerms } from './pages.index.js';
export { pagesProjection } from './pages.projection.js';
export {
  containerRows,
  findContainer,
  listPages,
  PAGE_LIST_DEFAULT,
  PAGE_LIST_MAX,
  pageDetail,
  searchFingerprint,
} from './pages.queries.js';
export {
  createPagesService,
  pagesLedger,
  type ActiveChart,
  type PagesService,
  type PageWriteResult,
} from './pages.service.js';
export { type PagesState } from './pages.state.js';
export { knowledgeTools } from './pages.tools.js';
