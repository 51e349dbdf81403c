/**
 * One live tail for the projections of a stream booted together (shared-replay.ts): they replayed the same
 * history up to the same sequence, so one `Bus.follow` from just after it feeds them all, each message
 * folded into each in turn. Followed once per stream, not once per read model (on JetStream, five ordered
 * consumers of `SVC_EVENTS` per node became one). A member that joins after messages arrived is handed them
 * first (its fold skips what it holds); one that leaves (stopped, or rebuilding on its own read) is no
 * longer fed, and the follow ends with the last.
 */
import type { Bus, StoredMessage, Subscription } from '../../bus/index.js';

type Fold = (message: StoredMessage) => void;

export class SharedTail {
  private readonly members = new Set<Fold>();
  /** What arrived while members were still joining; dropped once the group is sealed. */
  private early: StoredMessage[] | null = [];
  private following: Promise<Subscription> | null = null;
  private ended = false;

  constructor(
    private readonly bus: Bus,
    private readonly stream: string,
    private readonly fromSeq: number,
    private readonly onError: (error: unknown, message: StoredMessage) => void,
  ) {}

  /** Feeds `fold` from the tail (the messages it missed first); resolves once the follow is open. */
  async join(fold: Fold): Promise<Subscription> {
    if (this.ended) throw new Error(`the shared tail of ${this.stream} has ended`);
    for (const message of this.early ?? []) this.feed(fold, message);
    this.members.add(fold);
    this.following ??= this.bus.follow(this.stream, { fromSeq: this.fromSeq }, (message) => {
      this.early?.push(message);
      for (const member of this.members) this.feed(member, message);
    });
    await this.following;
    return { stop: () => this.leave(fold) };
  }

  /** Every member has joined: nothing more is kept for late joiners. */
  seal(): void {
    this.early = null;
  }

  private feed(fold: Fold, message: StoredMessage): void {
    try {
      fold(message);
    } catch (error) {
      // One member's failure never keeps the message from the others.
      this.onError(error, message);
    }
  }

  private async leave(fold: Fold): Promise<void> {
    if (!this.members.delete(fold) || this.members.size > 0 || this.following === null) return;
    this.ended = true;
    this.early = null;
    const following = this.following;
    this.following = null;
    await (await following).stop();
  }
}
