/** The knowledge base's records, command and limits (ops/knowledge-base.md). */
export {
  PageCommentBody,
  ContainerKey,
  PageBody,
  PageLimits,
  opIdReusedDetail,
  PageOutcome,
  pageGesture,
  PageRecord,
  PageRefusalCode,
  PageTitle,
} from './pages.records.js';
export { PageWrite, PageWriteReply } from './pages.commands.js';
export type { PageChangeInput } from './pages.commands.js';
export { containersOf, type Container } from './pages.containers.js';
