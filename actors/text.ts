/** `s` cut to at most `n` characters, an ellipsis marking the cut. */
export const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
