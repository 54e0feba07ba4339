/**
 * The usage report as the key CLI prints it: one line per key (requests, bytes, refused,
 * aborted, peak hour, share of its limit), busiest first, and a total. `--json` prints the
 * report itself instead (the admin listener's `/usage` shape).
 */
import type { UsageReport } from '../domain/usage-report';
import { printableValue } from '../shared/printable';

/** Bytes in binary units with one decimal (`12.3 MiB`); exact below 1 KiB. */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** The report as lines of text: a heading, one line per key, a total. */
export function usageTable(report: UsageReport): string {
  const head = `usage ${report.from} to ${report.to} (${report.hours} h; share: peak hour against the key's limit per ${report.windowS} s window)`;
  if (report.keys.length === 0) return `${head}\nno requests named a key in these hours`;
  const rows: string[][] = [
    ['key', 'requests', 'bytes', 'refused', 'aborted', 'peak hour (UTC)', 'share'],
  ];
  for (const k of report.keys) {
    rows.push([
      // Usage data names keys as they were counted: one no longer registered was never
      // checked against the id alphabet here, so it cannot break the table's lines.
      printableValue(k.key),
      String(k.requests),
      formatBytes(k.bytes),
      String(k.refused),
      String(k.aborted),
      k.peakHour === null
        ? '-'
        : `${k.peakHour.hour.slice(0, 10)} ${k.peakHour.hour.slice(11, 16)} (${k.peakHour.requests})`,
      k.share === null
        ? 'no longer registered'
        : `${(k.share * 100).toFixed(2)}% of ${k.limit}/window`,
    ]);
  }
  const t = report.totals;
  rows.push(['total', String(t.requests), formatBytes(t.bytes), String(t.refused), '', '', '']);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  // Names and the last two columns read left to right; counts line up on the right.
  const line = (r: string[]) =>
    r
      .map((cell, c) => (c === 0 || c >= 5 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [head, ...rows.map(line)].join('\n');
}
