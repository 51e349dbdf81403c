/** The knowledge base's writer (`svc.cmd.pages.write`) and the tools seats and operators use on it. */
export { startPagesHost } from './pages.host.js';
