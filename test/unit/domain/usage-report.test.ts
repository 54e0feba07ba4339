import type { KeyRegistryData } from '../../../src/domain/key-records';
import { hourLabel, parseHourLabel, type UsageEntry } from '../../../src/domain/usage';
import {
  buildUsageReport,
  parseSince,
  reportHours,
  scopedKeys,
} from '../../../src/domain/usage-report';
import { formatBytes, usageTable } from '../../../src/keys/usage-table';

const H = 493_000;
const registry: KeyRegistryData = {
  apps: [
    { id: 'web', disabled: false },
    { id: 'ios', disabled: false },
  ],
  keys: [
    { id: 'acme', sha256: 'a'.repeat(64), apps: ['web'], limit: 60, disabled: false },
    { id: 'beta', sha256: 'b'.repeat(64), apps: ['ios'], disabled: false },
  ],
};
const scope = { fromHour: H - 23, toHour: H, windowS: 60, defaultLimit: 1200 };

const entries: UsageEntry[] = [
  {
    keyId: 'acme',
    hour: H - 1,
    counts: {
      requests: 100,
      bytes: 5000,
      'status:206': 80,
      'status:304': 5,
      'status:403': 5,
      'status:429': 10,
      'route:/tiles/:timestamp.pmtiles': 90,
      'route-bytes:/tiles/:timestamp.pmtiles': 5000,
      'route:/status.json': 10,
    },
  },
  {
    keyId: 'acme',
    hour: H,
    counts: {
      requests: 40,
      bytes: 10,
      'status:200': 39,
      'status:499': 1,
      'route:/status.json': 40,
    },
  },
  { keyId: 'beta', hour: H, counts: { requests: 7, bytes: 1, 'status:200': 7 } },
  { keyId: 'gone', hour: H, counts: { requests: 3, 'status:200': 3 } },
  { keyId: 'acme', hour: H - 24, counts: { requests: 1000 } }, // outside the hours
];

it('sums each key over the hours, busiest first, with refused, aborted, routes and peak hour', () => {
  const report = buildUsageReport(entries, registry, scope);
  expect(report.keys.map((k) => k.key)).toEqual(['acme', 'beta', 'gone']);
  const acme = report.keys[0]!;
  expect(acme).toEqual({
    key: 'acme',
    apps: ['web'],
    limit: 60,
    requests: 140,
    bytes: 5010,
    refused: 15,
    aborted: 1,
    statuses: { '200': 39, '206': 80, '304': 5, '403': 5, '429': 10, '499': 1 },
    routes: {
      '/status.json': { requests: 50, bytes: 0 },
      '/tiles/:timestamp.pmtiles': { requests: 90, bytes: 5000 },
    },
    peakHour: { hour: `${isoHour(H - 1)}:00:00Z`, requests: 100 },
    // 100 requests, 15 refused: 85 points of 60 × 3600 / 60 = 3600.
    share: Math.round((85 / 3600) * 1e4) / 1e4,
  });
  expect(report.keys[1]).toMatchObject({ key: 'beta', limit: 1200, share: 0.0001 });
  expect(report.keys[2]).toMatchObject({ key: 'gone', apps: [], limit: null, share: null });
  expect(report.totals).toEqual({ requests: 150, bytes: 5011, refused: 15 });
  expect(report.hours).toBe(24);
  expect(report.from).toBe(`${isoHour(H - 23)}:00:00Z`);
  expect(report.to).toBe(`${isoHour(H + 1)}:00:00Z`);
});

function isoHour(hour: number): string {
  const label = hourLabel(hour);
  expect(parseHourLabel(label)).toBe(hour);
  return `${label.slice(0, 4)}-${label.slice(4, 6)}-${label.slice(6, 8)}T${label.slice(8, 10)}`;
}

it('restricts to a key, to the keys of an app, or to a key of an app', () => {
  expect(
    buildUsageReport(entries, registry, { ...scope, key: 'beta' }).keys.map((k) => k.key),
  ).toEqual(['beta']);
  expect(
    buildUsageReport(entries, registry, { ...scope, app: 'web' }).keys.map((k) => k.key),
  ).toEqual(['acme']);
  expect(scopedKeys({ ...scope, app: 'web', key: 'beta' }, registry)).toEqual([]);
  expect(scopedKeys({ ...scope, app: 'ios', key: 'beta' }, registry)).toEqual(['beta']);
  expect(scopedKeys(scope, registry)).toBeUndefined();
});

it('the peak hour is the one with most requests, the earliest of equals', () => {
  const tie: UsageEntry[] = [
    { keyId: 'acme', hour: H, counts: { requests: 5 } },
    { keyId: 'acme', hour: H - 2, counts: { requests: 5 } },
  ];
  expect(buildUsageReport(tie, registry, scope).keys[0]!.peakHour!.requests).toBe(5);
  expect(buildUsageReport(tie, registry, scope).keys[0]!.peakHour!.hour).toBe(
    `${isoHour(H - 2)}:00:00Z`,
  );
});

it('reads since as hours or days, and refuses anything else', () => {
  expect(parseSince('24h')).toBe(24);
  expect(parseSince('7d')).toBe(168);
  expect(parseSince('1h')).toBe(1);
  for (const bad of ['0h', '24', '1w', '-1d', '1.5h', '', '400d', '24 h'])
    expect(typeof parseSince(bad)).toBe('string');
  expect(reportHours(24, H)).toEqual({ fromHour: H - 23, toHour: H });
});

it('prints a table per key and a total', () => {
  const table = usageTable(buildUsageReport(entries, registry, scope));
  const lines = table.split('\n');
  expect(lines[0]).toContain('(24 h; share: peak hour against the key');
  expect(lines[1]).toMatch(
    /^key\s+requests\s+bytes\s+refused\s+aborted\s+peak hour \(UTC\)\s+share$/,
  );
  expect(lines[2]).toMatch(
    /^acme\s+140\s+4\.9 KiB\s+15\s+1\s+\d{4}-\d\d-\d\d \d\d:00 \(100\)\s+2\.36% of 60\/window$/,
  );
  expect(lines[4]).toMatch(/^gone\s+3\s+0 B\s+0\s+0\s+.*no longer registered$/);
  expect(lines[5]).toMatch(/^total\s+150\s+4\.9 KiB\s+15$/);
  expect(usageTable(buildUsageReport([], registry, scope))).toContain(
    'no requests named a key in these hours',
  );
  expect(formatBytes(1023)).toBe('1023 B');
  expect(formatBytes(1536 * 1024)).toBe('1.5 MiB');
});
