/**
 * One sentence a person can act on for each way a radar request fails. Map applications show
 * it as is; the viewer page uses it for its message banner.
 */
import { RadarApiError, RadarRateLimitError, RadarResponseError } from './errors';

function seconds(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return `${s} s`;
}

/** A short explanation of `error`; `nowMs` dates rate-limit waits. */
export function explainError(error: unknown, nowMs: number = Date.now()): string {
  if (error instanceof RadarRateLimitError) {
    return `Rate limit reached (429 Too Many Requests): this API key has used its requests for now; try again in ${seconds(error.retryAtMs - nowMs)}.`;
  }
  if (error instanceof RadarApiError) {
    switch (error.status) {
      case 401:
        return 'API key or app id not accepted (401 Unauthorized): check both values.';
      case 403:
        return 'Access denied (403 Forbidden): this API key is disabled or not allowed to use this app id.';
      case 404:
        return 'Radar frame not found (404): it has probably expired; the list will refresh.';
      case 429:
        return 'Rate limit reached (429 Too Many Requests): wait for the rate-limit window to reset.';
      case 503:
        return 'Radar service unavailable (503): no radar data published yet, or the service is starting.';
      default:
        return `Radar service error (${error.status} ${error.serviceMessage}).`;
    }
  }
  if (error instanceof RadarResponseError)
    return `Unexpected answer from the radar service: ${error.message}.`;
  if (error instanceof TypeError)
    return 'Radar service unreachable: check the network and the service address.';
  return `Radar request failed: ${error instanceof Error ? error.message : String(error)}.`;
}
