/** Small helpers of the bench's Markdown report. */

/** A number for the report (`n/a` when not finite). */
export const f = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** A Markdown table (cells' `|` escaped). */
export function mdTable(header: string[], rows: string[][]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}
