/**
 * Observed and forecast frames as one timeline, oldest first: the observed frames the status
 * lists, then the forecast frames of the latest nowcast whose valid time is later than the
 * newest observed frame (a forecast for a time already observed is superseded by the
 * observation). Each frame says what it is, so a map never presents a forecast as observed,
 * and carries its URLs, so a map library needs no path rules of its own.
 */
import { forecastKey } from '../domain/forecast-frames';
import { parseTimestamp } from '../domain/timestamps';
import { archivePath } from './archive-source';
import type { RadarStatus } from './status';
import { tileJsonPath, tileTemplatePath } from './tiles';

/** What every frame of the timeline has. */
interface TimelineFrameBase {
  /**
   * Archive key: the timestamp of an observed frame, `forecast-{base}-{LLL}` of a forecast
   * frame. What `openArchive`, `tileJson`, `createRadarFrames().show` and friends take.
   */
  readonly key: string;
  /** The time the frame shows, 12 UTC digits. */
  readonly valid: string;
  /** The same instant, epoch milliseconds. */
  readonly validMs: number;
  /** Absolute URL of the frame's PMTiles archive. */
  readonly archiveUrl: string;
  /** Absolute URL of the frame's TileJSON. */
  readonly tileJsonUrl: string;
  /** Absolute z/x/y URL template (`{z}`, `{x}`, `{y}` left for the map library). */
  readonly tileUrl: string;
}

/** A frame of observed radar. */
export interface ObservedTimelineFrame extends TimelineFrameBase {
  readonly kind: 'observed';
}

/** A forecast frame: the radar extrapolated `lead` minutes from the observed frame `base`. */
export interface ForecastTimelineFrame extends TimelineFrameBase {
  readonly kind: 'forecast';
  readonly base: string;
  /** Minutes after the base time. */
  readonly lead: number;
}

/** One frame of {@link radarTimeline}. */
export type RadarTimelineFrame = ObservedTimelineFrame | ForecastTimelineFrame;

/**
 * The status's frames as one timeline, oldest first (observed, then forecast). `url` makes a
 * service path absolute (a client's `transport.url`).
 */
export function radarTimeline(
  status: Pick<RadarStatus, 'timestamps' | 'forecasts'>,
  url: (path: string) => string,
): RadarTimelineFrame[] {
  const urls = (key: string) => ({
    archiveUrl: url(archivePath(key)),
    tileJsonUrl: url(tileJsonPath(key)),
    tileUrl: url(tileTemplatePath(key)),
  });
  const observed: RadarTimelineFrame[] = [...status.timestamps].sort().map((timestamp) => ({
    kind: 'observed',
    key: timestamp,
    valid: timestamp,
    validMs: parseTimestamp(timestamp)!,
    ...urls(timestamp),
  }));
  const newest = observed.at(-1)?.valid ?? '';
  const forecasts: RadarTimelineFrame[] = [...status.forecasts]
    .filter((f) => f.valid > newest)
    .sort((a, b) => a.valid.localeCompare(b.valid) || a.lead - b.lead)
    .filter((f, i, all) => i === 0 || all[i - 1]!.valid !== f.valid)
    .map(({ base, lead, valid }) => {
      const key = forecastKey({ base, lead });
      return {
        kind: 'forecast',
        key,
        base,
        lead,
        valid,
        validMs: parseTimestamp(valid)!,
        ...urls(key),
      };
    });
  return [...observed, ...forecasts];
}
