/**
 * The knowledge base's projection: a fold of SVC_PAGES from its first record, run by the one runner on
 * every node. It keeps no checkpoint: the search index is rebuilt by the same folds, so a boot, a
 * rebuild and the live tail all go through `applyPageRecord`, and replay equals live by construction.
 */
import { Streams } from '../../bus/index.js';
import { decodeJson } from '../runner/decode-json.js';
import type { Projection } from '../runner/runner.js';
import { applyPageRecord } from './pages.fold.js';
import { PagesIndex } from './pages.index.js';
import { emptyPagesState, type PagesState } from './pages.state.js';

/** A fresh projection definition; each owns its search index (closed when it starts over). */
export function pagesProjection(): Projection<PagesState> {
  let index: PagesIndex | null = null;
  return {
    name: 'pages',
    version: 1,
    stream: Streams.Pages,
    init: () => {
      index?.close();
      index = new PagesIndex();
      return emptyPagesState(index);
    },
    apply: (state, message) => applyPageRecord(state, decodeJson(message.data), message.seq),
  };
}
