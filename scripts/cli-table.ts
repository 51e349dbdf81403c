/** Plain-text tables of the client commands (`svc fleet status`, `svc agents list`): aligned columns, no borders. */

/** Rows (the first is the header) as aligned lines, two spaces between columns, no trailing blanks. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
