/**
 * Freezes an object and every object inside it, so a value handed to every part of the
 * service (the configuration) cannot be changed by one of them behind the others' backs.
 */
export function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value))
    if (inner !== null && typeof inner === 'object') deepFreeze(inner as object);
  return Object.freeze(value);
}
