/** The knowledge base's read model: pages by id, titles per container, children, outcomes by op_id. */
import type { PageOutcome, ServiceCaller } from '../../schema/index.js';
import { PagesIndex } from './pages.index.js';

export interface PageRevision {
  readonly version: number;
  readonly at: string;
  readonly by: ServiceCaller;
  readonly op_id: string;
  /** What the revision changed: `created`, or any of `title`, `body`, `parent`. */
  readonly changed: readonly string[];
}

export interface PageComment {
  readonly id: string;
  readonly body: string;
  readonly at: string;
  readonly by: ServiceCaller;
}

export interface Page {
  readonly id: string;
  readonly container: string;
  title: string;
  body: string;
  parent_id: string | null;
  version: number;
  readonly created_at: string;
  readonly created_by: ServiceCaller;
  updated_at: string;
  updated_by: ServiceCaller;
  /** Oldest first. */
  readonly revisions: PageRevision[];
  /** Oldest first. */
  readonly comments: PageComment[];
}

export interface PagesState {
  readonly pages: Map<string, Page>;
  /** `container \0 titleKey` -> page id: a title is unique in its container (case and spaces aside). */
  readonly titles: Map<string, string>;
  /** Parent page id -> child ids. */
  readonly children: Map<string, Set<string>>;
  /** Live pages per container. */
  readonly counts: Map<string, number>;
  readonly outcomes: Map<string, PageOutcome>;
  /**
   * op_id of an update, comment or delete -> the page it named and the title slot that page held when it
   * was decided (null: no such page then), so a retry naming the page as it was is still known.
   */
  readonly targets: Map<string, { readonly page_id: string; readonly slot: string | null }>;
  readonly index: PagesIndex;
}

/** Case folded and whitespace runs collapsed: how `CONTAINER/Title` and uniqueness compare titles. */
export const titleKey = (title: string): string => title.trim().replace(/\s+/gu, ' ').toLowerCase();

export const titleSlot = (container: string, title: string): string => `${container}\u0000${titleKey(title)}`;

export function emptyPagesState(index: PagesIndex = new PagesIndex()): PagesState {
  return {
    pages: new Map(),
    titles: new Map(),
    children: new Map(),
    counts: new Map(),
    outcomes: new Map(),
    targets: new Map(),
    index,
  };
}
