/** The knowledge base's read model, its queries, the service routes and tools use, and its tools. */
export { PagesIndex, queryTerms, type SearchHit } from './pages.index.js';
export { applyPageRecord } from './pages.fold.js';
export { pagesProjection } from './pages.projection.js';
export {
  breadcrumb,
  containerRows,
  findContainer,
  listPages,
  PAGE_LIST_DEFAULT,
  PAGE_LIST_MAX,
  pageDetail,
  pageRow,
  resolvePage,
  type PageDetail,
  type PageList,
  type PageListQuery,
  type PageRow,
} from './pages.queries.js';
export {
  createPagesService,
  pagesLedger,
  type ActiveChart,
  type PagesService,
  type PageWriteResult,
} from './pages.service.js';
export { emptyPagesState, titleKey, type Page, type PagesState } from './pages.state.js';
export { knowledgeTools } from './pages.tools.js';
