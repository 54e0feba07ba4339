/**
 * Retention as a person converting one frame meets it: a frame older than `RADAR_RETENTION_S`
 * is unpublished by the service at its next ingest pass and its file deleted after a grace
 * period, so a conversion of such a frame is refused up front with the way to keep it, rather
 * than written for the service to remove behind the person's back.
 */

const DAY_S = 86_400;

/** Why a frame valid at `validTimeMs` cannot stay published, or undefined when it can. */
export interface RetentionRefusal {
  readonly ageS: number;
  readonly retentionS: number;
  /** A `RADAR_RETENTION_S` that keeps the frame for at least another day (whole days). */
  readonly suggestedRetentionS: number;
}

/** Whether a frame valid at `validTimeMs` lies outside `retentionS` at `nowMs`. */
export function outsideRetention(
  validTimeMs: number,
  nowMs: number,
  retentionS: number,
): RetentionRefusal | undefined {
  const ageS = Math.floor((nowMs - validTimeMs) / 1000);
  if (ageS < retentionS) return undefined;
  return { ageS, retentionS, suggestedRetentionS: (Math.ceil(ageS / DAY_S) + 1) * DAY_S };
}

/** A duration in the largest whole unit a person reads at a glance (`1332 days`, `6 h`). */
export function describeSeconds(seconds: number): string {
  if (seconds >= 2 * DAY_S) return `${Math.floor(seconds / DAY_S)} days`;
  if (seconds >= 7200) return `${Math.floor(seconds / 3600)} h`;
  if (seconds >= 120) return `${Math.floor(seconds / 60)} min`;
  return `${seconds} s`;
}
