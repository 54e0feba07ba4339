/**
 * How the page names a frame, so a forecast is never read as an observation: observed frames
 * are "Observed", forecast frames carry their lead ("Forecast +30 min") and the observed frame
 * they were extrapolated from. The frame's time line always shows the valid time.
 */
import type { RadarTimelineFrame } from '../src/client/timeline';
import { formatUtc } from './time-format';

/** The badge beside the frame time: `Observed` or `Forecast +30 min`. */
export function frameBadge(frame: RadarTimelineFrame): string {
  return frame.kind === 'forecast' ? `Forecast +${frame.lead} min` : 'Observed';
}

/** The line under the time: where a forecast comes from (empty for an observed frame). */
export function frameOrigin(frame: RadarTimelineFrame): string {
  return frame.kind === 'forecast'
    ? `Nowcast extrapolated from the ${formatUtc(frame.base)} radar; not observed`
    : '';
}

/** `Frame 31 of 36`, with the forecast's place among the forecasts when it is one. */
export function frameCount(frames: readonly RadarTimelineFrame[], index: number): string {
  if (frames.length === 0) return 'No frames yet';
  const forecasts = frames.filter((f) => f.kind === 'forecast').length;
  const base = `Frame ${index + 1} of ${frames.length}`;
  if (forecasts === 0) return base;
  const firstForecast = frames.length - forecasts;
  return index >= firstForecast
    ? `${base} (forecast ${index - firstForecast + 1} of ${forecasts})`
    : `${base} (${forecasts} forecast)`;
}
