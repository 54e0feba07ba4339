/** The sentences users see for each failure. */
import { RadarApiError, RadarRateLimitError, RadarResponseError } from '../../../src/client/errors';
import { explainError } from '../../../src/client/explain-error';

it.each([
  [new RadarApiError(401, 'Unauthorized', '/status.json'), /401 Unauthorized.*check both/],
  [new RadarApiError(403, 'Forbidden', '/status.json'), /403 Forbidden/],
  [new RadarApiError(503, 'Service Unavailable', '/status.json'), /no radar data published yet/],
  [new RadarApiError(500, 'Internal Server Error', '/status.json'), /500 Internal Server Error/],
  [new RadarResponseError('status.latest is not a 12-digit timestamp'), /Unexpected answer/],
  [new TypeError('fetch failed'), /unreachable/],
])('%s', (error, expected) => {
  expect(explainError(error)).toMatch(expected);
});

it('says how long a rate limit lasts', () => {
  const now = 1_000_000;
  expect(explainError(new RadarRateLimitError('/status.json', now + 41_200), now)).toMatch(
    /Rate limit reached.*try again in 42 s/,
  );
});
