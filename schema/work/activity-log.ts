/**
 * The tracker's change log (`WorkState.activity`): every change, oldest first, with the rows of a purged
 * item removed and its purge row kept. A purge only notes where the item's rows end; they leave the list
 * in one pass when it is next read, so a replay that folds many purges walks the log once, not once each.
 */
/** What the log needs of a row (state.ts's `ActivityRow`): the item it is about. */
interface Logged {
  readonly item: string;
}

export class ActivityLog<Row extends Logged> {
  private list: Row[];
  /** Item id -> how many rows were appended when it was last purged: its rows below that go. */
  private readonly purged = new Map<string, number>();

  constructor(rows: Row[] = []) {
    this.list = rows;
  }

  push(row: Row): void {
    this.list.push(row);
  }

  /** Removes every row of `item` appended so far (a row appended later, a new item of that id's, stays). */
  purge(item: string): void {
    this.purged.set(item, this.list.length);
  }

  /** The rows, oldest first. */
  rows(): readonly Row[] {
    if (this.purged.size > 0) {
      const kept: Row[] = [];
      for (let i = 0; i < this.list.length; i++) {
        const row = this.list[i]!;
        if (i >= (this.purged.get(row.item) ?? 0)) kept.push(row);
      }
      this.list = kept;
      this.purged.clear();
    }
    return this.list;
  }
}
