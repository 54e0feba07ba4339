/**
 * The control panel: every DOM read and write of the page lives here, so the session logic
 * stays testable and the markup can change in one place. `data-*` attributes mirror the state
 * (`body[data-radar-state]`, `#time-utc[data-timestamp]` (the shown frame's valid time) and
 * `[data-key]` (its archive key), `body[data-frame-kind]` (`observed` or `forecast`),
 * `body[data-frame-loaded]`) for scripts and the browser test.
 */
import type { RateLimitState } from '../src/client/rate-limit';
import type { RadarCredentials } from '../src/client/transport';
import { byId } from './by-id';
import { frameBadge, frameCount, frameOrigin } from './frame-label';
import type { PlayerState } from './player';
import { formatAge, formatClock, formatLocal, formatUtc } from './time-format';

/** Kinds of banner message; `auth` and `rate-limit` are the ones users must act on or wait for. */
export type MessageKind = 'auth' | 'rate-limit' | 'error' | 'info';

/** Coarse page state, mirrored on `body[data-radar-state]`. */
export type PageState =
  'starting' | 'connecting' | 'ready' | 'auth-error' | 'rate-limited' | 'error';

/** The panel's controls and displays. */
export interface Panel {
  setPageState(state: PageState): void;
  showMessage(kind: MessageKind, text: string): void;
  /** Hides the message if it is of `kind` (any kind when omitted). */
  clearMessage(kind?: MessageKind): void;
  messageKind(): MessageKind | undefined;
  setHealth(healthy: boolean | undefined): void;
  setLatestAge(latest: string | undefined, nowMs: number): void;
  setQuota(state: RateLimitState | undefined): void;
  setPlayer(state: PlayerState): void;
  setFrameLoaded(loaded: boolean): void;
  fillCredentials(credentials: RadarCredentials | undefined, fromDemo: boolean): void;
  openCredentials(): void;
  onControls(handlers: ControlHandlers): void;
  /** Called after the panel folds or unfolds (the visible map area changed). */
  onLayoutChange(listener: () => void): void;
}

/** What the user can ask for. */
export interface ControlHandlers {
  toggle(): void;
  step(delta: number): void;
  latest(): void;
  seek(index: number): void;
  connect(credentials: RadarCredentials): void;
}

/** Binds the panel to the page's markup (`web/index.html`). */
export function createPanel(doc: Document): Panel {
  const body = doc.body;
  const message = byId(doc, 'message');
  const health = byId(doc, 'health');
  const timeUtc = byId(doc, 'time-utc');
  const timeLocal = byId(doc, 'time-local');
  const age = byId(doc, 'age');
  const slider = byId<HTMLInputElement>(doc, 'slider');
  const play = byId<HTMLButtonElement>(doc, 'play');
  const frameCounter = byId(doc, 'frame-count');
  const frameKind = byId(doc, 'frame-kind');
  const origin = byId(doc, 'frame-origin');
  const timeline = byId(doc, 'timeline');
  const observedBar = byId(doc, 'timeline-observed');
  const forecastBar = byId(doc, 'timeline-forecast');
  const cursor = byId(doc, 'timeline-cursor');
  const quota = byId(doc, 'quota');
  const details = byId<HTMLDetailsElement>(doc, 'credentials');
  const form = byId<HTMLFormElement>(doc, 'credentials-form');
  const apiKey = byId<HTMLInputElement>(doc, 'api-key');
  const appId = byId<HTMLInputElement>(doc, 'app-id');
  const note = byId(doc, 'credentials-note');
  const panelBox = byId(doc, 'panel');
  const fold = byId<HTMLButtonElement>(doc, 'panel-toggle');
  const frameButtons = ['prev', 'next', 'latest'].map((id) => byId<HTMLButtonElement>(doc, id));
  const layoutListeners: Array<() => void> = [];
  const setFolded = (folded: boolean) => {
    panelBox.classList.toggle('folded', folded);
    fold.setAttribute('aria-expanded', String(!folded));
    fold.textContent = folded ? 'More' : 'Less';
    for (const listener of layoutListeners) listener();
  };
  fold.addEventListener('click', () => setFolded(!panelBox.classList.contains('folded')));
  // Phones open folded: the map is what they came for.
  if (doc.defaultView?.matchMedia('(max-width: 600px)').matches) setFolded(true);

  return {
    setPageState(state) {
      body.dataset.radarState = state;
    },
    showMessage(kind, text) {
      message.dataset.kind = kind;
      message.textContent = text;
      message.hidden = false;
    },
    clearMessage(kind) {
      if (kind !== undefined && message.dataset.kind !== kind) return;
      message.hidden = true;
      message.textContent = '';
      delete message.dataset.kind;
    },
    messageKind: () => (message.hidden ? undefined : (message.dataset.kind as MessageKind)),
    setHealth(healthy) {
      health.textContent = healthy === undefined ? '…' : healthy ? '● healthy' : '● unhealthy';
      health.className = `badge${healthy === undefined ? '' : healthy ? ' healthy' : ' unhealthy'}`;
    },
    setLatestAge(latest, nowMs) {
      age.textContent = latest ? `Latest frame ${formatAge(latest, nowMs)}` : '';
    },
    setQuota(state) {
      quota.textContent = state
        ? `Requests left: ${state.remaining}/${state.limit} (resets ${formatClock(state.resetAtMs)})`
        : 'Requests left: —';
      quota.dataset.remaining = state ? String(state.remaining) : '';
    },
    setPlayer({ frames, index, playing }) {
      const frame = frames[index];
      const ts = frame?.valid;
      timeUtc.textContent = ts ? formatUtc(ts) : '—';
      timeUtc.dataset.timestamp = ts ?? '';
      timeUtc.dataset.key = frame?.key ?? '';
      timeLocal.textContent = ts ? formatLocal(ts) : '';
      body.dataset.frameKind = frame?.kind ?? '';
      frameKind.textContent = frame ? frameBadge(frame) : '';
      frameKind.hidden = frame === undefined;
      frameKind.dataset.kind = frame?.kind ?? '';
      origin.textContent = frame ? frameOrigin(frame) : '';
      slider.max = String(Math.max(0, frames.length - 1));
      slider.value = String(Math.max(0, index));
      slider.disabled = frames.length < 2;
      frameCounter.textContent = frameCount(frames, index);
      // The timeline bar: observed frames, then the forecast frames in their own colour.
      const forecasts = frames.filter((f) => f.kind === 'forecast').length;
      observedBar.style.flexGrow = String(frames.length - forecasts);
      forecastBar.style.flexGrow = String(forecasts);
      forecastBar.hidden = forecasts === 0;
      timeline.dataset.forecasts = String(forecasts);
      cursor.style.left = `${(100 * (Math.max(0, index) + 0.5)) / Math.max(1, frames.length)}%`;
      cursor.dataset.kind = frame?.kind ?? '';
      // Nothing to play or step through until the first frame is listed.
      play.disabled = frames.length === 0;
      for (const button of frameButtons) button.disabled = frames.length === 0;
      play.textContent = playing ? 'Pause' : 'Play';
      play.setAttribute('aria-pressed', String(playing));
    },
    setFrameLoaded(loaded) {
      body.dataset.frameLoaded = String(loaded);
    },
    fillCredentials(credentials, fromDemo) {
      apiKey.value = credentials?.apiKey ?? '';
      appId.value = credentials?.appId ?? '';
      note.textContent = fromDemo
        ? "Pre-filled with this server's demo credentials. Stored in this browser only."
        : 'Stored in this browser only.';
    },
    openCredentials() {
      if (panelBox.classList.contains('folded')) setFolded(false);
      details.open = true;
    },
    onLayoutChange(listener) {
      layoutListeners.push(listener);
    },
    onControls(handlers) {
      play.addEventListener('click', () => handlers.toggle());
      byId(doc, 'prev').addEventListener('click', () => handlers.step(-1));
      byId(doc, 'next').addEventListener('click', () => handlers.step(1));
      byId(doc, 'latest').addEventListener('click', () => handlers.latest());
      slider.addEventListener('input', () => handlers.seek(Number(slider.value)));
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        handlers.connect({ apiKey: apiKey.value.trim(), appId: appId.value.trim() });
      });
    },
  };
}
