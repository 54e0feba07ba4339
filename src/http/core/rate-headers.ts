/**
 * The rate-limit headers' names, spelled once: the answer writer sends them on every answer
 * that spent a point, and CORS exposes exactly these (with `Retry-After`, formed in one place by
 * the error registry's `retryAfterHeader`), so a renamed header can never be sent unexposed.
 */
/** `X-RateLimit-Limit`: the key's requests per window. */
export const RATE_LIMIT_LIMIT = 'X-RateLimit-Limit';
/** `X-RateLimit-Remaining`: requests left in the current window. */
export const RATE_LIMIT_REMAINING = 'X-RateLimit-Remaining';
/** `X-RateLimit-Reset`: when the current window ends, Unix seconds. */
export const RATE_LIMIT_RESET = 'X-RateLimit-Reset';

/** The three names, in the order the writer sends them. */
export const RATE_LIMIT_HEADERS = [RATE_LIMIT_LIMIT, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET];
