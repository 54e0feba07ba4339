/**
 * The authentication contract as a model, written from docs/behaviour.md and RFC 6750 rather
 * than from the service's code, over the test registry of `test/harness/embedded-api.ts`:
 *
 * - a header value is `Bearer` (any case), one or more spaces, a b64token
 *   (`[A-Za-z0-9-._~+/]+=*`), optional trailing spaces; Node strips leading and trailing
 *   SP/HTAB first. Anything else (no value, another scheme, a tab or NBSP as separator, a
 *   token with other characters) is malformed;
 * - malformed, unknown key or unknown app -> 401; known key and app, but either disabled or
 *   the app not bound to the key -> 403; else allowed.
 */
import { APPS, KEYS } from '../embedded-api';

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The token a header value carries as the server sees it (latin1), or undefined if malformed. */
export function bearerToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.replace(/^[ \t]+|[ \t]+$/g, '');
  const scheme = trimmed.slice(0, 6);
  if (scheme.length !== 6 || scheme.toLowerCase() !== 'bearer') return undefined;
  const rest = trimmed.slice(6);
  if (!rest.startsWith(' ')) return undefined;
  const token = rest.replace(/^ +/, '').replace(/ +$/, '');
  return B64TOKEN.test(token) ? token : undefined;
}

interface KeyModel {
  readonly apps: readonly string[];
  readonly disabled: boolean;
}

const MODEL_KEYS = new Map<string, KeyModel>([
  [KEYS.good, { apps: [APPS.web, APPS.off], disabled: false }],
  [KEYS.limited, { apps: [APPS.web], disabled: false }],
  [KEYS.disabled, { apps: [APPS.web], disabled: true }],
  [KEYS.unbound, { apps: [APPS.mobile], disabled: false }],
]);
const MODEL_APPS = new Map<string, boolean>([
  [APPS.web, false],
  [APPS.mobile, false],
  [APPS.off, true],
  [APPS.other, false],
]);

export type AuthOutcome = 401 | 403 | 'allowed';

/** The decision for the two header values as the server sees them. */
export function expectedAuth(
  authorization: string | undefined,
  xApp: string | undefined,
): AuthOutcome {
  const key = bearerToken(authorization);
  const app = bearerToken(xApp);
  if (key === undefined || app === undefined) return 401;
  const keyModel = MODEL_KEYS.get(key);
  const appDisabled = MODEL_APPS.get(app);
  if (!keyModel || appDisabled === undefined) return 401;
  if (keyModel.disabled || appDisabled || !keyModel.apps.includes(app)) return 403;
  return 'allowed';
}
