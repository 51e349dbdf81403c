/** How tool-server instances are supervised: restart backoff, start and call bounds, remote health checks. */
export interface SupervisionSettings {
  /** First restart delay; doubles per consecutive failure. */
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  /** An instance up at least this long before failing starts its backoff again from the base. */
  readonly stableMs: number;
  /** Bound on spawning/connecting plus the MCP handshake and the first tool listing. */
  readonly startTimeoutMs: number;
  readonly callTimeoutMs: number;
  /** A remote instance is pinged this often, so an outage shows without waiting for a call. */
  readonly healthCheckMs: number;
}

export const defaultSupervision: SupervisionSettings = {
  backoffBaseMs: 1_000,
  backoffCapMs: 60_000,
  stableMs: 60_000,
  startTimeoutMs: 30_000,
  callTimeoutMs: 120_000,
  healthCheckMs: 30_000,
};
