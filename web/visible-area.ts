/**
 * Fits CONUS into the part of the map the panel and legend leave visible, on every viewport:
 * on a wide screen the panel sits beside the map (pad on the left), on a phone it spans the
 * top (pad at the top). The side is chosen by which leaves CONUS larger, from the elements'
 * real boxes, so the fit follows the CSS instead of assuming a layout.
 */

/** Padding in CSS pixels, as MapLibre's `fitBounds` takes it. */
export interface Padding {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** Width / height of CONUS (-125..-66 °E, 24..50 °N) in Web Mercator. */
const CONUS_ASPECT = (59 * Math.PI) / 180 / (mercatorY(50) - mercatorY(24));

function mercatorY(latDeg: number): number {
  return Math.log(Math.tan(Math.PI / 4 + (latDeg * Math.PI) / 360));
}

const MARGIN = 12;
/** Room for the attribution line along the bottom edge. */
const ATTRIBUTION = 24;

type Box = Pick<DOMRect, 'top' | 'bottom' | 'left' | 'right'>;

/**
 * Padding that keeps CONUS clear of `panel` (top-left) and `legend` (bottom-right) inside a
 * `width` × `height` map. `panel` may be undefined (hidden).
 */
export function visiblePadding(
  width: number,
  height: number,
  panel: Box | undefined,
  legend: Box | undefined,
): Padding {
  const bottom = Math.max(ATTRIBUTION, legend ? height - legend.top + MARGIN : 0);
  const base: Padding = { top: MARGIN, bottom, left: MARGIN, right: MARGIN };
  if (!panel) return base;
  const beside: Padding = { ...base, left: panel.right + MARGIN };
  const below: Padding = { ...base, top: panel.bottom + MARGIN };
  const scale = (p: Padding) =>
    Math.min(Math.max(0, width - p.left - p.right) / CONUS_ASPECT, height - p.top - p.bottom);
  const best = scale(beside) >= scale(below) ? beside : below;
  // Never pad the map away entirely (tiny windows): MapLibre would refuse to fit.
  const spareX = width - best.left - best.right;
  const spareY = height - best.top - best.bottom;
  if (spareX < 40 || spareY < 40) return { top: 0, bottom: 0, left: 0, right: 0 };
  return best;
}

/** The current padding for the page's `#map`, `.panel` and `#legend`. */
export function pagePadding(doc: Document): Padding {
  const map = doc.getElementById('map')!.getBoundingClientRect();
  const visible = (el: Element | null) =>
    el && (el as HTMLElement).offsetParent !== null ? el.getBoundingClientRect() : undefined;
  const relative = (box: DOMRect | undefined) =>
    box && {
      top: box.top - map.top,
      bottom: box.bottom - map.top,
      left: box.left - map.left,
      right: box.right - map.left,
    };
  return visiblePadding(
    map.width,
    map.height,
    relative(visible(doc.querySelector('.panel'))),
    relative(visible(doc.getElementById('legend'))),
  );
}
