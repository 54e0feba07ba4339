/**
 * The API description as the service serves it: `openapi/openapi.yaml` of the repository,
 * converted to JSON by `npm run build` into `dist/openapi/public/openapi.json`, read once at
 * start. The bytes never change while the process runs, so the strong ETag is computed once.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { readIfExists } from '../shared/read-if-exists';

/** The served description: its bytes and their strong ETag. */
export interface OpenApiDocument {
  readonly body: Buffer;
  readonly etag: string;
}

/**
 * `dist/openapi/public` of this checkout, where `npm run build` writes the description and the
 * HTML reference: the same path whether this module runs compiled from `dist/openapi/` or from
 * source in `src/openapi/`.
 */
export function defaultOpenApiAssetsDir(): string {
  return path.resolve(__dirname, '..', '..', 'dist', 'openapi', 'public');
}

/** File name of the description inside the assets directory. */
export const OPENAPI_FILE = 'openapi.json';

/**
 * Reads and checks the description in `assetsDir`; undefined when it was never built (the
 * route then answers 503, as the viewer does for an unbuilt page). A file that is not a JSON
 * object naming an OpenAPI version is a broken build and throws.
 */
export function loadOpenApiDocument(
  assetsDir: string = defaultOpenApiAssetsDir(),
): OpenApiDocument | undefined {
  const file = path.join(assetsDir, OPENAPI_FILE);
  const body = readIfExists(file);
  if (body === undefined) return undefined;
  const parsed: unknown = JSON.parse(body.toString('utf8'));
  if (typeof (parsed as { openapi?: unknown } | null)?.openapi !== 'string')
    throw new Error(`${file} is not an OpenAPI description`);
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  return { body, etag };
}
