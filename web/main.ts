/**
 * The viewer page's entry point: loads the server's viewer config and the packaged base map,
 * creates the MapLibre map, and (re)connects a radar session whenever credentials are given.
 * `window.radarViewer` exposes the map and session for debugging and the browser test.
 */
import * as maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import type { RadarCredentials } from '../src/client/transport';
import { BASEMAP_CREDITS, basemapCreditText, type CreditLink } from '../src/viewer/basemap';
import { basemapStyle, RADAR_BEFORE_LAYER } from './basemap-style';
import { createCredentialsStore } from './credentials-store';
import { createLegendView, legendControl, storedScheme, storeScheme } from './legend';
import { fetchBasemap, fetchPageJson } from './page-json';
import { createPanel } from './panel';
import { createRadarSession, type RadarSession } from './radar-session';
import { pagePadding } from './visible-area';
import './viewer.css';

/** `/viewer/config.json` (see `src/viewer/viewer-routes.ts`). */
interface ViewerConfig {
  readonly apiBaseUrl: string | null;
  readonly demo: RadarCredentials | null;
}

/** Contiguous US, the archives' coverage. */
const CONUS: [[number, number], [number, number]] = [
  [-125, 24],
  [-66, 50],
];

/**
 * Where the base map comes from; links open in a new tab (the page itself loads nothing
 * remote). The radar's own attribution comes from each archive's metadata (simulated, or
 * NOAA MRMS), through its map source.
 */
const ATTRIBUTION = [
  link({ name: 'MapLibre', url: 'https://maplibre.org/' }),
  ...BASEMAP_CREDITS.map((credit) => basemapCreditText(credit, link)),
].join(' · ');

function link({ name, url }: CreditLink): string {
  return `<a href="${url}" target="_blank" rel="noopener noreferrer">${name}</a>`;
}

declare global {
  interface Window {
    radarViewer?: { map: maplibregl.Map; session: () => RadarSession | undefined };
  }
}

async function main(): Promise<void> {
  const panel = createPanel(document);
  const legend = createLegendView(document);
  maplibregl.setWorkerUrl(new URL('maplibre-gl-worker.mjs', location.href).href);
  const [config, basemap] = await Promise.all([
    fetchPageJson<ViewerConfig>('config.json'),
    fetchBasemap(),
  ]);
  const apiBaseUrl = config.apiBaseUrl ?? location.origin;

  const map = new maplibregl.Map({
    container: 'map',
    style: basemapStyle(basemap),
    bounds: CONUS,
    fitBoundsOptions: { padding: pagePadding(document) },
    attributionControl: { compact: false, customAttribution: ATTRIBUTION },
    renderWorldCopies: false,
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
  // Added after the attribution, so stacked above it in the same corner.
  map.addControl(legendControl(legend.element), 'bottom-right');
  // Refit CONUS when the visible area changes (rotation, resize, panel folded) until the user
  // moves the map themselves.
  let userMoved = false;
  map.on('movestart', (event: { originalEvent?: Event }) => {
    if (event.originalEvent) userMoved = true;
  });
  const refit = () => {
    if (!userMoved) map.fitBounds(CONUS, { padding: pagePadding(document), animate: false });
  };
  window.addEventListener('resize', () => requestAnimationFrame(refit));
  panel.onLayoutChange(refit);
  await map.once('load');
  refit();

  const store = createCredentialsStore(localStorage, config.demo);
  let session: RadarSession | undefined;
  const connect = (credentials: RadarCredentials) => {
    session?.close();
    session = createRadarSession({
      map,
      maplibre: maplibregl,
      panel,
      apiBaseUrl,
      credentials,
      beforeId: RADAR_BEFORE_LAYER,
      scheme: storedScheme(localStorage),
      onLegend: (doc, schemeId) => legend.show(doc, schemeId),
    });
  };
  legend.onSelect((schemeId) => {
    storeScheme(localStorage, schemeId);
    session?.setScheme(schemeId);
  });
  legend.onTypeColours((on) => session?.setTypeColours(on));
  panel.onControls({
    toggle: () => session?.player.toggle(),
    step: (delta) => session?.player.step(delta),
    latest: () => session?.player.latest(),
    seek: (index) => session?.player.seek(index),
    connect: (credentials) => {
      store.save(credentials);
      connect(credentials);
    },
  });
  window.radarViewer = { map, session: () => session };

  const initial = store.initial();
  panel.fillCredentials(initial.credentials, initial.fromDemo);
  if (initial.credentials) {
    connect(initial.credentials);
  } else {
    panel.setPageState('auth-error');
    panel.showMessage('info', 'Enter an API key and app id to load radar.');
    panel.openCredentials();
  }
}

main().catch((error: unknown) => {
  const message = document.getElementById('message');
  if (message) {
    message.hidden = false;
    message.dataset.kind = 'error';
    message.textContent = `The viewer failed to start: ${error instanceof Error ? error.message : String(error)}`;
  }
  document.body.dataset.radarState = 'error';
});
