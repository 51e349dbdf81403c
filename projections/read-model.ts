/**
 * The shape every read model here has (house style 5): a name, a version (a change means rebuild from
 * zero), the subjects it reads, an initial state and a pure-by-contract `apply`. The state is owned by
 * one runner and updated in place, so replaying a month of events stays linear.
 */
export interface ReadModel<S, M> {
  readonly name: string;
  readonly version: number;
  /** Bus subjects (wildcards allowed) whose messages `apply` folds. */
  readonly subjects: readonly string[];
  init(): S;
  /** Folds one decoded message; returns the state (the same object). Malformed input is skipped. */
  apply(state: S, message: M): S;
}
