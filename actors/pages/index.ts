/** The knowledge base's writer (`svc.cmd.pages.write`) and the tools seats and operators use on it. */
export { recordFor, recordKind, type Minted } from './pages.decide.js';
export { startPagesHost, type PagesHostOptions, type PagesLedger } from './pages.host.js';
