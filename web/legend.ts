/**
 * The dBZ legend and the colour-scheme picker, drawn from the service's `/legend.json` (never
 * from a table bundled with the page), so the legend, the picker and the colours on the map
 * come from one document. Until a session has read it, the legend shows its title and a
 * disabled picker at its final size, so the map's fit does not move when it arrives.
 */
import type { IControl } from 'maplibre-gl';
import type { RadarLegend, RadarLegendScheme } from '../src/client/legend';
import { byId } from './by-id';

const STORAGE_KEY = 'radar-viewer.scheme';

/** The legend box and its picker. */
export interface LegendView {
  /** The `#legend` element (made a map control by {@link legendControl}). */
  readonly element: HTMLElement;
  /** Fills the picker with the legend's schemes and draws `schemeId`'s steps. */
  show(legend: RadarLegend, schemeId: string): void;
  /** Called with the scheme the user picks. */
  onSelect(listener: (schemeId: string) => void): void;
  /**
   * Called when the user switches type colours on or off (off: the snow and hail ramps are
   * hidden and the map shows them in rain colours).
   */
  onTypeColours(listener: (on: boolean) => void): void;
}

/** The types in the order the legend draws their ramps. */
const TYPES = ['rain', 'snow', 'hail'] as const;

/**
 * One ramp per precipitation type (rain, snow, hail), one swatch per step, each swatch's title
 * its type and dBZ range; under them one row of labels, every 10 dBZ.
 */
function renderScale(container: HTMLElement, scheme: RadarLegendScheme): void {
  const doc = container.ownerDocument;
  const row = (className: string, head: string, cells: HTMLElement[]) => {
    const element = doc.createElement('div');
    element.className = className;
    const name = doc.createElement('div');
    name.className = 'legend-type';
    name.textContent = head;
    element.append(name, ...cells);
    return element;
  };
  const types = TYPES.filter((type) => scheme.steps.some((step) => step.type === type));
  const ramps = types.map((type) => {
    const steps = scheme.steps.filter((step) => step.type === type);
    const ramp = row(
      'legend-ramp',
      type,
      steps.map((step) => {
        const cell = doc.createElement('div');
        cell.className = 'legend-step';
        cell.title = `${type} ${step.label}`;
        const swatch = doc.createElement('div');
        swatch.className = 'legend-swatch';
        swatch.style.background = step.color;
        swatch.style.opacity = String(step.opacity);
        cell.append(swatch);
        return cell;
      }),
    );
    ramp.dataset.type = type;
    return ramp;
  });
  const labels = row(
    'legend-ramp legend-labels',
    '',
    scheme.steps
      .filter((step) => step.type === types[0])
      .map((step) => {
        const label = doc.createElement('div');
        label.className = 'legend-step';
        label.textContent = step.min % 10 === 0 ? String(step.min) : '';
        return label;
      }),
  );
  container.replaceChildren(...ramps, labels);
}

/** Binds the legend markup of `web/index.html`. */
export function createLegendView(doc: Document): LegendView {
  const element = byId(doc, 'legend');
  const picker = byId<HTMLSelectElement>(doc, 'scheme');
  const scale = byId(doc, 'legend-scale');
  const types = byId<HTMLInputElement>(doc, 'type-colours');
  element.dataset.typeColours = types.checked ? 'on' : 'off';
  let current: RadarLegend | undefined;
  const draw = (schemeId: string) => {
    const scheme = current?.schemes.find((s) => s.id === schemeId);
    if (scheme === undefined) return;
    picker.value = scheme.id;
    picker.title = scheme.description;
    renderScale(scale, scheme);
    element.dataset.scheme = scheme.id;
  };
  return {
    element,
    show(legend, schemeId) {
      current = legend;
      picker.replaceChildren(
        ...legend.schemes.map((scheme) => {
          const option = doc.createElement('option');
          option.value = scheme.id;
          option.textContent = scheme.name;
          return option;
        }),
      );
      picker.disabled = false;
      draw(schemeId);
    },
    onSelect(listener) {
      picker.addEventListener('change', () => {
        draw(picker.value);
        listener(picker.value);
      });
    },
    onTypeColours(listener) {
      types.addEventListener('change', () => {
        element.dataset.typeColours = types.checked ? 'on' : 'off';
        listener(types.checked);
      });
    },
  };
}

/** The scheme this browser last picked (kept in `localStorage`), if any. */
export function storedScheme(storage: Storage): string | undefined {
  try {
    return storage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the picked scheme in this browser. */
export function storeScheme(storage: Storage, schemeId: string): void {
  try {
    storage.setItem(STORAGE_KEY, schemeId);
  } catch {
    // Storage full or refused: the choice lasts for this page only.
  }
}

/**
 * The legend as a map control in the bottom-right corner. MapLibre stacks the controls of a
 * corner, so the legend sits above the attribution line, however many lines the attribution
 * wraps to on a narrow screen, instead of being placed over it at a guessed offset.
 */
export function legendControl(container: HTMLElement): IControl {
  return {
    onAdd: () => {
      container.classList.add('maplibregl-ctrl');
      return container;
    },
    onRemove: () => {
      container.remove();
    },
  };
}
