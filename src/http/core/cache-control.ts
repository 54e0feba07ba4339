/**
 * `Cache-Control` of everything addressed by an archive version (the archive, its tiles, its
 * TileJSON): immutable for a year, `private` unless the operator allows shared caches
 * (`RADAR_CACHE_CONTROL`). One definition for the archive, tile and TileJSON answers.
 */
export function immutableCacheControl(setting: 'private' | 'public'): string {
  return `${setting}, max-age=31536000, immutable`;
}
