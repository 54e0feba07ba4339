/** The one lookup of the viewer's markup by id, shared by the panel and the legend. */

/** The element `#id` of `doc`; throws naming it when the markup lacks it. */
export function byId<T extends HTMLElement>(doc: Document, id: string): T {
  const element = doc.getElementById(id);
  if (!element) throw new Error(`viewer markup lacks #${id}`);
  return element as T;
}
