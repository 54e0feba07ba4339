/**
 * One connection of the page to the API with one set of credentials: the client library's
 * client, status watch and map frames, tied to the player and the panel. Changing credentials
 * closes the session and starts a new one, so no request of the old key outlives it.
 *
 * The session also reads `/legend.json` once and shows the frames in the chosen colour scheme:
 * the archives stay the bytes the service publishes, and the tiles get the scheme's palette in
 * the page (the client library's palette swap, with the legend's colours).
 *
 * The timeline is the status's observed frames, then the forecast frames of the latest nowcast
 * (client library `timeline`). When the nowcast's base changes, the session reads one forecast
 * frame's TileJSON for the motion field the interpolation moves the echoes along.
 */
import type { Map as MapLibreMap } from 'maplibre-gl';
import { RadarApiError, RadarRateLimitError } from '../src/client/errors';
import { explainError } from '../src/client/explain-error';
import {
  createRadarFrames,
  type MapLibreProtocols,
  type RadarFrames,
} from '../src/client/map-frames';
import { schemeRewrite, type RadarLegend } from '../src/client/legend';
import { createRadarClient } from '../src/client/radar-client';
import type { RadarStatus } from '../src/client/status';
import { watchStatus } from '../src/client/status-watcher';
import type { RadarCredentials } from '../src/client/transport';
import type { RadarMotionField } from '../src/client/motion-field';
import { forecastKey } from '../src/domain/forecast-frames';
import { createInterpolator, type Interpolator } from './interpolation';
import type { Panel } from './panel';
import { createPlayer, type Player } from './player';

/** Options of {@link createRadarSession}. */
export interface RadarSessionOptions {
  readonly map: MapLibreMap;
  readonly maplibre: MapLibreProtocols;
  readonly panel: Panel;
  readonly apiBaseUrl: string;
  readonly credentials: RadarCredentials;
  /** Layer the radar goes below. */
  readonly beforeId: string;
  /**
   * Status poll period (default 15 s): a new frame shows within 15 s of being listed, and a
   * freshly started service's backfill fills the slider quickly, for 4 of ~1200 requests/min.
   */
  readonly pollMs?: number;
  /** The colour scheme to start in (the legend's default when it lists no such scheme). */
  readonly scheme?: string;
  /** Called once the legend is read, with the scheme the frames are shown in. */
  readonly onLegend?: (legend: RadarLegend, schemeId: string) => void;
}

/** A live connection. */
export interface RadarSession {
  readonly player: Player;
  readonly frames: RadarFrames;
  readonly interpolation: Interpolator;
  /** The nowcast base whose motion field the interpolation uses, if any. */
  motionBase(): string | undefined;
  status(): RadarStatus | undefined;
  /** Shows the frames in `schemeId` (applied once the legend is read, if it is not yet). */
  setScheme(schemeId: string): void;
  /** Shows snow and hail in their own colours (on) or in the scheme's rain colours (off). */
  setTypeColours(on: boolean): void;
  close(): void;
}

/** The banner while requests wait for the rate-limit window to reopen. */
function rateLimitMessage(limit: number, waitMs: number): string {
  return `Rate limit reached (429 Too Many Requests): this API key may make ${limit} requests per window. Retrying in ${Math.ceil(waitMs / 1000)} s.`;
}

/** Starts a session: polls the status at once and shows the latest frame. */
export function createRadarSession(options: RadarSessionOptions): RadarSession {
  const { map, panel } = options;
  const client = createRadarClient({
    baseUrl: options.apiBaseUrl,
    credentials: options.credentials,
  });
  const frames = createRadarFrames({
    map,
    client,
    maplibre: options.maplibre,
    beforeId: options.beforeId,
    maxFrames: 48,
  });
  const interpolation = createInterpolator({ map, frames, beforeId: options.beforeId });
  const player = createPlayer({
    frames,
    transition: interpolation.transition,
    warm: (from, to) => interpolation.warm(from, to),
    onChange: (state) => {
      panel.setPlayer(state);
      updateLoaded();
    },
  });
  let status: RadarStatus | undefined;
  let closed = false;
  let legend: RadarLegend | undefined;
  let scheme = options.scheme;
  /** The base of the field in use, and the base being read (one read per nowcast). */
  let motionBase: string | undefined;
  let motionWanted: string | undefined;
  const followMotion = (next: RadarStatus) => {
    const first = next.forecasts[0];
    if (first === undefined) {
      motionWanted = motionBase = undefined;
      interpolation.setMotion(undefined);
      return;
    }
    if (first.base === motionWanted) return;
    motionWanted = first.base;
    client
      .tileJson(forecastKey(first))
      .then((doc) => {
        if (closed || motionWanted !== first.base) return;
        const field: RadarMotionField | undefined = doc.motion;
        motionBase = field ? first.base : undefined;
        interpolation.setMotion(field);
      })
      .catch((error: unknown) => {
        if (motionWanted === first.base) motionWanted = undefined; // try again next poll
        fail(error);
      });
  };
  let typeColours = true;
  /** One rewrite per scheme and type setting, so picking the shown one again reloads nothing. */
  const rewrites = new Map<string, ReturnType<typeof schemeRewrite>>();
  const applyScheme = () => {
    if (legend === undefined || closed) return;
    if (scheme === undefined || !legend.schemes.some((s) => s.id === scheme))
      scheme = legend.default;
    const key = `${scheme} ${typeColours}`;
    if (!rewrites.has(key)) rewrites.set(key, schemeRewrite(legend, scheme, typeColours));
    frames.setRecolour(rewrites.get(key));
    interpolation.forget();
  };

  const updateLoaded = () => {
    const current = player.current();
    panel.setFrameLoaded(current !== undefined && frames.isLoaded(current.key));
  };

  const fail = (error: unknown) => {
    if (closed) return;
    if (
      error instanceof RadarRateLimitError ||
      (error instanceof RadarApiError && error.status === 429)
    ) {
      panel.setPageState('rate-limited');
      panel.showMessage('rate-limit', explainError(error));
      return;
    }
    if (error instanceof RadarApiError && (error.status === 401 || error.status === 403)) {
      player.pause();
      panel.setPageState('auth-error');
      panel.showMessage('auth', explainError(error));
      panel.openCredentials();
      return;
    }
    if (error instanceof RadarApiError && error.status === 404) {
      void watch.refresh(); // a frame expired between two polls: the list catches up
      return;
    }
    panel.setPageState('error');
    panel.showMessage('error', explainError(error));
  };

  const unsubscribeRate = client.onRateLimit((state) => {
    panel.setQuota(state);
    const wait = state.blockedUntilMs === undefined ? 0 : state.blockedUntilMs - Date.now();
    if (wait > 0) {
      panel.setPageState('rate-limited');
      panel.showMessage('rate-limit', rateLimitMessage(state.limit, wait));
    } else if (panel.messageKind() === 'rate-limit') {
      panel.clearMessage('rate-limit');
      panel.setPageState(status ? 'ready' : 'connecting');
    }
  });
  const unsubscribeError = client.onError(fail);

  panel.setPageState('connecting');
  panel.setQuota(undefined);
  panel.setHealth(undefined);
  const watch = watchStatus(client, {
    intervalMs: options.pollMs ?? 15_000,
    onStatus: (next) => {
      if (closed) return;
      status = next;
      const timeline = client.timeline(next);
      frames.retain(timeline.map((f) => f.key));
      player.setFrames(timeline);
      followMotion(next);
      panel.setHealth(next.healthy);
      panel.setLatestAge(next.latest, Date.now());
      if (panel.messageKind() !== 'rate-limit') {
        panel.clearMessage();
        panel.setPageState('ready');
      }
    },
    onError: fail,
  });

  client
    .legend()
    .then((doc) => {
      if (closed) return;
      legend = doc;
      applyScheme();
      options.onLegend?.(doc, scheme!);
    })
    .catch(fail);

  const onMapData = () => updateLoaded();
  map.on('sourcedata', onMapData);
  map.on('idle', onMapData);
  // Ages and the rate-limit countdown move with the clock, not with requests.
  const clock = setInterval(() => {
    panel.setLatestAge(status?.latest, Date.now());
    const state = client.rateLimit();
    if (state?.blockedUntilMs !== undefined) {
      const wait = state.blockedUntilMs - Date.now();
      if (wait > 0 && panel.messageKind() === 'rate-limit') {
        panel.showMessage('rate-limit', rateLimitMessage(state.limit, wait));
      }
    }
  }, 1000);

  return {
    player,
    frames,
    interpolation,
    motionBase: () => motionBase,
    status: () => status,
    setScheme(schemeId) {
      scheme = schemeId;
      applyScheme();
    },
    setTypeColours(on) {
      typeColours = on;
      applyScheme();
    },
    close() {
      closed = true;
      clearInterval(clock);
      watch.stop();
      player.close();
      unsubscribeRate();
      unsubscribeError();
      map.off('sourcedata', onMapData);
      map.off('idle', onMapData);
      interpolation.close();
      frames.remove();
    },
  };
}
