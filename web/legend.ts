/**
 * The dBZ legend, drawn from the simulator's palette table itself so the legend and the tiles
 * cannot disagree.
 */
import type { IControl } from 'maplibre-gl';
import type { PaletteStep } from '../src/render/palette';

/** Fills `container` with one swatch per palette step, labelled with its lower bound in dBZ. */
export function renderLegend(container: HTMLElement, palette: readonly PaletteStep[]): void {
  const doc = container.ownerDocument;
  const title = doc.createElement('div');
  title.className = 'legend-title';
  title.textContent = 'Reflectivity (dBZ)';
  const scale = doc.createElement('div');
  scale.className = 'legend-scale';
  for (const step of palette) {
    const cell = doc.createElement('div');
    cell.className = 'legend-step';
    cell.title = `${step.dbz}+ dBZ`;
    const swatch = doc.createElement('div');
    swatch.className = 'legend-swatch';
    swatch.style.background = step.color;
    const label = doc.createElement('div');
    label.textContent = step.dbz % 10 === 0 ? String(step.dbz) : '';
    cell.append(swatch, label);
    scale.append(cell);
  }
  container.replaceChildren(title, scale);
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
