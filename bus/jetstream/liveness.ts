/**
 * Whether the server behind a consumer is still there, judged by what it sends, since nothing tells the
 * client when that server dies: a consumer silent for three heartbeats while the link is up is lost, and so
 * is one that has sent nothing at all — no message, no heartbeat — two heartbeats after it was created or
 * after the link came back.
 * The second catches a consumer created during an election and accepted by a group that then did not keep
 * it: waiting out the full silence for it delayed a follower's resumption by seconds after the new leader.
 */
/** The server's idle heartbeat on a supervised read's or consumer's pull requests. */
export const heartbeatMs = 1_000;
/** Silence (no message, no heartbeat) after which the server behind a consumer counts as lost. */
export const silenceMs = 3 * heartbeatMs;
/** How long a new consumer may stay silent before it counts as lost. */
const unprovenMs = 2 * heartbeatMs;

/** Statuses only the server sends: proof that the consumer lives somewhere. */
export const fromServer = (status: { readonly type: string }): boolean =>
  status.type === 'heartbeat' || status.type === 'flow_control';

/** The link as a liveness judge sees it (the engine host). */
export interface Link {
  linked(): boolean;
  onLinkChange(listener: (linked: boolean) => void): () => void;
}

export class Liveness {
  private heardAt = Date.now();
  private openedAt = Date.now();
  private proven = false;
  private readonly unwatch: () => void;

  constructor(private readonly link: Link) {
    // An outage shorter than a watchdog tick is never seen by `lost()`: the server reached after it may
    // not be the one that held the consumer, so the consumer must prove itself again from the moment
    // the link is back.
    this.unwatch = link.onLinkChange((linked) => {
      if (linked) this.opened();
    });
  }

  /** Stops following the link. */
  close(): void {
    this.unwatch();
  }

  /** A consumer (or a round of pulls) has just started: it has yet to be heard. */
  opened(): void {
    this.heardAt = this.openedAt = Date.now();
    this.proven = false;
  }

  /** Something arrived; `server` when only the server could have sent it (a message, a heartbeat). */
  heard(server: boolean): void {
    this.heardAt = Date.now();
    if (server) this.proven = true;
  }

  /** Why the consumer counts as lost now, or null; a verdict restarts the clock, so it is given once per attempt. */
  lost(): 'silent' | 'unproven' | null {
    const now = Date.now();
    // While the link is down nothing can be heard; once it is back, the consumer must be heard again
    // as a new one must: the server this client reached may not be the one that held it.
    if (!this.link.linked()) {
      this.opened();
      return null;
    }
    const verdict =
      !this.proven && now - this.openedAt > unprovenMs
        ? 'unproven'
        : now - this.heardAt > silenceMs
          ? 'silent'
          : null;
    if (verdict !== null) this.opened();
    return verdict;
  }
}
