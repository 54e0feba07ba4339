/**
 * The shape of `basemap.json`, written by the viewer build (`build-viewer.ts`, Node) and read
 * by the pages (`web/`, browser), and how the pages draw and credit it: its colours, its
 * layers in order, its credits. No imports beyond types, so both sides (and the browser tests)
 * can import it.
 */
import type { FeatureCollection } from 'geojson';

/** The base map the page draws, as GeoJSON feature collections. */
export interface Basemap {
  /** World land polygons (Natural Earth 1:50m via world-atlas); also drawn as coastline. */
  readonly land: FeatureCollection;
  /** Borders between countries (world-atlas 1:50m). */
  readonly countryBorders: FeatureCollection;
  /** US state polygons (US Census 1:10m via us-atlas). */
  readonly states: FeatureCollection;
  /** Borders shared by two states. */
  readonly stateBorders: FeatureCollection;
  /** Outline of the United States. */
  readonly nation: FeatureCollection;
}

/**
 * The base map's colours, shared by the viewer and the Leaflet and OpenLayers example pages so
 * every page draws the same dark map (which keeps the NWS palette's contrast).
 */
export const BASEMAP_COLOURS = {
  /** Sea, and everything outside the land polygons. */
  background: '#0b1622',
  /** Land outside the United States. */
  land: '#1c2229',
  /** US states. */
  states: '#242b33',
  countryBorders: '#5b6672',
  coastline: '#5f6c79',
  stateBorders: '#8793a0',
  nation: '#b3bec9',
} as const;

/** One layer of the base map: a collection of `basemap.json` drawn as a fill or a line. */
export type BasemapLayer =
  | {
      /** The layer's name (the MapLibre style's layer id). */
      readonly id: string;
      readonly kind: 'fill';
      readonly data: keyof Basemap;
      readonly colour: string;
    }
  | {
      readonly id: string;
      readonly kind: 'line';
      readonly data: keyof Basemap;
      readonly colour: string;
      /** Line width in CSS pixels. */
      readonly width: number;
    };

/**
 * The base map's layers, bottom to top, as every page draws them: the fills under the radar,
 * the lines (borders, coastline, the US outline) over it, so borders stay visible over echoes.
 */
export const BASEMAP_LAYERS: readonly BasemapLayer[] = [
  { id: 'land', kind: 'fill', data: 'land', colour: BASEMAP_COLOURS.land },
  { id: 'states', kind: 'fill', data: 'states', colour: BASEMAP_COLOURS.states },
  {
    id: 'country-borders',
    kind: 'line',
    data: 'countryBorders',
    colour: BASEMAP_COLOURS.countryBorders,
    width: 0.8,
  },
  { id: 'coastline', kind: 'line', data: 'land', colour: BASEMAP_COLOURS.coastline, width: 0.8 },
  {
    id: 'state-borders',
    kind: 'line',
    data: 'stateBorders',
    colour: BASEMAP_COLOURS.stateBorders,
    width: 0.7,
  },
  { id: 'nation', kind: 'line', data: 'nation', colour: BASEMAP_COLOURS.nation, width: 1.2 },
];

/** A named thing with its web page. */
export interface CreditLink {
  readonly name: string;
  readonly url: string;
}

/** Where one part of the base map comes from: `US states: US Census via us-atlas`. */
export interface BasemapCredit {
  /** What is credited. */
  readonly what: string;
  /** Who made the data. */
  readonly source: CreditLink;
  /** The package that ships it. */
  readonly via: CreditLink;
}

/** The base map's credits, shown by every page that draws it. */
export const BASEMAP_CREDITS: readonly BasemapCredit[] = [
  {
    what: 'US states',
    source: { name: 'US Census', url: 'https://www.census.gov/geographies/mapping-files.html' },
    via: { name: 'us-atlas', url: 'https://github.com/topojson/us-atlas' },
  },
  {
    what: 'Land',
    source: { name: 'Natural Earth', url: 'https://www.naturalearthdata.com/' },
    via: { name: 'world-atlas', url: 'https://github.com/topojson/world-atlas' },
  },
];

/**
 * One credit as text, each name written by `name` (plain by default; a page that links them
 * passes a function that returns a link).
 */
export function basemapCreditText(
  credit: BasemapCredit,
  name: (link: CreditLink) => string = (link) => link.name,
): string {
  return `${credit.what}: ${name(credit.source)} via ${name(credit.via)}`;
}
