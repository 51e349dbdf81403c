/**
 * The listing's ordered lists (state.index.ts `all` and `byProject`): every item and each project's items,
 * oldest first. A removal only marks the item gone; the lists drop their gone items in one pass when next
 * read, or once the gone are half of what they hold (so a long replay's lists stay bounded). Splicing each
 * purged item out moved the rest of its list each time: a replay of 80,000 purges took seconds.
 */
/** What the lists read of an item: the project it stays in. */
interface Placed {
  readonly project: string;
}

/** Keeps, in place and in order, the items of `list` not in `gone`. */
function keep<T>(list: T[], gone: ReadonlySet<T>): void {
  let kept = 0;
  for (const item of list) if (!gone.has(item)) list[kept++] = item;
  list.length = kept;
}

export class CreationLists<T extends Placed> {
  private readonly every: T[] = [];
  private readonly projects = new Map<string, T[]>();
  /** Removed items still in the lists. */
  private readonly gone = new Set<T>();
  /** Projects whose list holds a gone item. */
  private readonly touched = new Set<string>();

  /** Every held item, oldest first. */
  all(): T[] {
    this.settle();
    return this.every;
  }

  /** Each project's held items, oldest first; a project with none has no entry. */
  byProject(): Map<string, T[]> {
    this.settle();
    return this.projects;
  }

  /** Appends `item` (items come in creation order). */
  push(item: T): void {
    // The same item again (not done by the fold): its old place must go first.
    if (this.gone.has(item)) this.settle();
    this.every.push(item);
    let list = this.projects.get(item.project);
    if (!list) this.projects.set(item.project, (list = []));
    list.push(item);
  }

  /** Takes `item` out of the lists, as the next read sees them. */
  remove(item: T): void {
    this.gone.add(item);
    this.touched.add(item.project);
    if (this.gone.size * 2 > this.every.length) this.settle();
  }

  private settle(): void {
    if (this.gone.size === 0) return;
    keep(this.every, this.gone);
    for (const project of this.touched) {
      const list = this.projects.get(project);
      if (!list) continue;
      keep(list, this.gone);
      if (list.length === 0) this.projects.delete(project);
    }
    this.gone.clear();
    this.touched.clear();
  }
}
