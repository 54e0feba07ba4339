/**
 * Prometheus HTTP service discovery for the blackbox exporter's archive probe. The exporter
 * cannot read `latest` from one answer and put it into the next URL, and the API has no
 * "latest" alias by design (one URL per immutable archive), so this reads `/status.json`
 * through the edge with the probe's credentials, as a client does, and names
 * `<edge>/tiles/<latest>.pmtiles` as the one target to probe (docs/slo.md).
 */
import { archiveFileName, parseTimestamp } from '../domain/timestamps';

/** One Prometheus `http_sd_configs` target group. */
export interface TargetGroup {
  readonly targets: string[];
  readonly labels: Record<string, string>;
}

export interface LatestArchiveTargetsOptions {
  /** The edge clients use, e.g. `http://nginx:8080` (no trailing slash needed). */
  readonly edgeUrl: string;
  readonly apiKey: string;
  readonly appId: string;
  /** Bound on one status read. */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

/** The `probe` label Prometheus relabels into the blackbox module `radar_latest_range`. */
export const LATEST_ARCHIVE_PROBE = 'latest-archive';

/**
 * Returns a function answering the current target groups. When the status read fails, the
 * last archive known is kept (its probe then reports on it) and the failure is returned too,
 * for the log; before any success the answer is an empty list (the status probe reports why).
 */
export function createLatestArchiveTargets(options: LatestArchiveTargetsOptions): () => Promise<{
  groups: TargetGroup[];
  error?: string;
}> {
  const edge = options.edgeUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  let last: string | undefined;
  const groups = (): TargetGroup[] =>
    last === undefined
      ? []
      : [
          {
            targets: [`${edge}/tiles/${archiveFileName(last)}`],
            labels: { probe: LATEST_ARCHIVE_PROBE },
          },
        ];

  return async () => {
    try {
      const res = await doFetch(`${edge}/status.json`, {
        headers: {
          Authorization: `Bearer ${options.apiKey}`,
          'X-App': `Bearer ${options.appId}`,
          Accept: 'application/json',
        },
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const body = (await res.json().catch(() => undefined)) as { latest?: unknown } | undefined;
      if (res.status !== 200)
        return { groups: groups(), error: `status.json answered ${res.status}` };
      const latest = body?.latest;
      if (typeof latest !== 'string' || parseTimestamp(latest) === undefined)
        return { groups: groups(), error: 'status.json has no valid "latest"' };
      last = latest;
      return { groups: groups() };
    } catch (err) {
      return { groups: groups(), error: `status.json unreadable: ${(err as Error).message}` };
    }
  };
}
