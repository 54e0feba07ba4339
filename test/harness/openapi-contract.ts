/**
 * The API description as a contract for tests: reads `openapi/openapi.yaml` (the source, not a
 * build) and checks a real response against it: the request's path and method name an
 * operation, the status is one the operation documents, every documented header marked
 * `required` is present, every documented header present matches its schema, no undocumented
 * header appears (beyond the transport's own), the `Content-Type` is a documented media type
 * and a JSON body (decompressed if it was sent compressed) matches its schema. A problem is
 * returned as text naming the request, so a failing test says what drifted.
 *
 * Schemas are validated by Ajv's JSON Schema 2020-12 class (the dialect of OpenAPI 3.1)
 * straight out of the description (its `$ref`s resolved by Ajv against the document); header
 * values are strings on the wire, so header schemas are validated with type coercion.
 * `HEAD` is checked as the `GET` of the same path without a body, a method no operation
 * has as the `GET`'s documented `405`.
 */
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { parse } from 'yaml';

/** The description's source in this checkout. */
export const OPENAPI_SOURCE = path.resolve(__dirname, '..', '..', 'openapi', 'openapi.yaml');

/** A response as a client saw it. */
export interface ObservedResponse {
  readonly method: string;
  /** Request-target (path and query). */
  readonly target: string;
  readonly status: number;
  /** Header fields by lower-case name. */
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface OpenApiContract {
  /** The description as parsed from its source. */
  readonly document: Readonly<Record<string, unknown>>;
  /** Every problem of `response` against the description; empty when it conforms. */
  check(response: ObservedResponse): string[];
  /** `operationId status` of every response checked so far. */
  covered(): ReadonlySet<string>;
  /** `operationId status` of every response the description documents. */
  documented(): ReadonlySet<string>;
}

/** Headers the transport adds to any response; the description does not list them. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-type']);

type Json = Record<string, unknown>;

interface Operation {
  readonly id: string;
  /** JSON pointer of the operation object. */
  readonly pointer: string;
  readonly responses: Json;
}

interface PathEntry {
  readonly template: string;
  readonly regexp: RegExp;
  readonly operations: Partial<Record<'get' | 'options', Operation>>;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The object a local `$ref` names, and its pointer; other objects as they are. */
function resolve(doc: Json, value: Json, pointer: string): { value: Json; pointer: string } {
  const ref = value['$ref'];
  if (typeof ref !== 'string') return { value, pointer };
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
  let target: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    target = (target as Json)[segment];
    if (target === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  return resolve(doc, target as Json, ref.slice(1));
}

function pathRegExp(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase();
}

function decoded(body: Buffer, encoding: string | string[] | undefined): Buffer {
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  if (encoding === 'br') return zlib.brotliDecompressSync(body);
  return body;
}

/** Loads the description from `file` (default: the source in this checkout). */
export function loadOpenApiContract(file: string = OPENAPI_SOURCE): OpenApiContract {
  const doc = parse(fs.readFileSync(file, 'utf8'), { strict: true, uniqueKeys: true }) as Json;
  const DOC_ID = 'https://radar-tiles.invalid/openapi.json';
  // Keywords of the OpenAPI dialect (`example`, `discriminator`, ...) are not JSON Schema's.
  const bodies = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const headers = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: false,
    coerceTypes: true,
  });
  bodies.addSchema(doc, DOC_ID);
  headers.addSchema(doc, DOC_ID);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (ajv: Ajv2020, kind: string, pointer: string): ValidateFunction => {
    const key = `${kind} ${pointer}`;
    let fn = compiled.get(key);
    if (fn === undefined) {
      const ref = { $ref: `${DOC_ID}#${pointer}` };
      // A header value is validated as a property, so that coercion applies to it.
      fn = ajv.compile(
        kind === 'header'
          ? { type: 'object', properties: { value: ref }, required: ['value'] }
          : ref,
      );
      compiled.set(key, fn);
    }
    return fn;
  };

  const paths: PathEntry[] = Object.entries(doc.paths as Json).map(([template, item]) => {
    const operations: PathEntry['operations'] = {};
    for (const method of ['get', 'options'] as const) {
      const op = (item as Json)[method] as Json | undefined;
      if (op === undefined) continue;
      operations[method] = {
        id: String(op.operationId),
        pointer: `/paths/${escapePointer(template)}/${method}`,
        responses: op.responses as Json,
      };
    }
    return { template, regexp: pathRegExp(template), operations };
  });
  const documented = new Set<string>();
  for (const entry of paths)
    for (const op of Object.values(entry.operations))
      for (const status of Object.keys(op.responses)) documented.add(`${op.id} ${status}`);
  const covered = new Set<string>();

  const errorsOf = (fn: ValidateFunction) =>
    (fn.errors ?? [])
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
      .join('; ');

  const check = (res: ObservedResponse): string[] => {
    const label = `${res.method} ${res.target} -> ${res.status}`;
    const pathname = res.target.split(/[?#]/)[0]!;
    const entry = paths.find((p) => p.regexp.test(pathname));
    if (entry === undefined) return [`${label}: no path of the description matches`];
    const method = res.method.toUpperCase();
    const op =
      method === 'OPTIONS' ? entry.operations.options : (entry.operations.get ?? undefined);
    if (op === undefined) return [`${label}: ${entry.template} documents no ${method}`];
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && res.status !== 405)
      return [`${label}: a method the path does not allow must be 405`];
    const raw = op.responses[String(res.status)] as Json | undefined;
    if (raw === undefined) return [`${label}: ${op.id} documents no ${res.status}`];
    covered.add(`${op.id} ${res.status}`);
    const pointer = `${op.pointer}/responses/${res.status}`;
    const response = resolve(doc, raw, pointer);
    const problems: string[] = [];

    const documentedHeaders = (response.value.headers ?? {}) as Json;
    const names = new Set<string>();
    for (const [name, rawHeader] of Object.entries(documentedHeaders)) {
      const lower = name.toLowerCase();
      names.add(lower);
      const header = resolve(
        doc,
        rawHeader as Json,
        `${response.pointer}/headers/${escapePointer(name)}`,
      );
      const value = res.headers[lower];
      if (value === undefined) {
        if (header.value.required === true) problems.push(`${label}: ${name} is missing`);
        continue;
      }
      const fn = validator(headers, 'header', `${header.pointer}/schema`);
      if (!fn({ value: Array.isArray(value) ? value.join(', ') : value }))
        problems.push(`${label}: ${name}: ${JSON.stringify(value)} ${errorsOf(fn)}`);
    }
    for (const name of Object.keys(res.headers))
      if (!names.has(name) && !TRANSPORT_HEADERS.has(name))
        problems.push(`${label}: ${name} is not documented for ${op.id} ${res.status}`);

    const content = response.value.content as Json | undefined;
    const type = mediaType(res.headers['content-type'] as string | undefined);
    if (content === undefined) {
      if (type !== undefined)
        problems.push(`${label}: Content-Type ${type} but no content documented`);
      if (res.body.length > 0) problems.push(`${label}: a body, but none is documented`);
      return problems;
    }
    if (type === undefined || content[type] === undefined) {
      problems.push(
        `${label}: Content-Type ${String(type)} is not one of ${Object.keys(content).join(', ')}`,
      );
      return problems;
    }
    if (method === 'HEAD') {
      if (res.body.length > 0) problems.push(`${label}: HEAD with a body`);
      return problems;
    }
    if (type === 'application/json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(decoded(res.body, res.headers['content-encoding']).toString('utf8'));
      } catch (err) {
        problems.push(`${label}: the body is not JSON (${(err as Error).message})`);
        return problems;
      }
      const fn = validator(
        bodies,
        'body',
        `${response.pointer}/content/${escapePointer(type)}/schema`,
      );
      if (!fn(parsed)) problems.push(`${label}: body ${errorsOf(fn)}`);
    }
    return problems;
  };

  return {
    document: doc,
    check,
    covered: () => covered,
    documented: () => documented,
  };
}
