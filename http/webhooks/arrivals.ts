/** Arrival counts per inbound surface on this node since it started (for `GET /integrations`). */

export interface SurfaceCounts {
  accepted: number;
  duplicates: number;
  /** Bad or missing signatures, stale timestamps, malformed bodies. */
  refused: number;
  /** Deliveries answered 503 because the surface's secret is not configured. */
  not_configured: number;
  last_accepted_at: string | null;
  last_refused_at: string | null;
}

export type Outcome = 'accepted' | 'duplicate' | 'refused' | 'not_configured';

export class Arrivals {
  private readonly counts = new Map<string, SurfaceCounts>();

  count(surface: string, outcome: Outcome, at = new Date()): void {
    let c = this.counts.get(surface);
    if (!c) {
      c = {
        accepted: 0,
        duplicates: 0,
        refused: 0,
        not_configured: 0,
        last_accepted_at: null,
        last_refused_at: null,
      };
      this.counts.set(surface, c);
    }
    if (outcome === 'accepted') {
      c.accepted++;
      c.last_accepted_at = at.toISOString();
    } else if (outcome === 'duplicate') c.duplicates++;
    else if (outcome === 'refused') {
      c.refused++;
      c.last_refused_at = at.toISOString();
    } else c.not_configured++;
  }

  of(surface: string): SurfaceCounts {
    return (
      this.counts.get(surface) ?? {
        accepted: 0,
        duplicates: 0,
        refused: 0,
        not_configured: 0,
        last_accepted_at: null,
        last_refused_at: null,
      }
    );
  }
}
