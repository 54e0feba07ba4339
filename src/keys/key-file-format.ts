/**
 * The key registry format (docs/keys.md), whatever stores it (the key file, or one string
 * in Redis): parsing validated with zod, serialising, and new API keys. Pure: the stores in
 * `adapters/fs/` and `adapters/redis/` do the reading and writing.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { KeyRegistryData } from '../domain/key-records';
import { originPatternProblem } from '../domain/origin-policy';

const id = z.string().regex(/^[A-Za-z0-9._~+/-]+$/, 'ids use letters, digits and . _ ~ + / -');

const originPattern = z.string().superRefine((value, ctx) => {
  const problem = originPatternProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * Strict on purpose: a misspelt field (`origin` for `origins`) would otherwise be dropped
 * silently and lift a restriction, and `{}` would load as "no keys". Unknown fields and a
 * document without both arrays are refused, naming the field.
 */
const keyFileSchema = z.strictObject({
  apps: z.array(z.strictObject({ id, disabled: z.boolean().default(false) })),
  keys: z.array(
    z.strictObject({
      id,
      sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be exactly 64 hex digits'),
      apps: z.array(id).default([]),
      limit: z.number().int().positive().optional(),
      disabled: z.boolean().default(false),
      origins: z.array(originPattern).optional(),
      requireOrigin: z.boolean().optional(),
    }),
  ),
});

/** A key file that cannot be read as the key registry format; the message says why. */
export class KeyFileError extends Error {}

/** `keys[0].origin`: a field's place in the document, as an operator would write it. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(document)' : out;
}

/** Whether `path` names a field the document does not have at all. */
function isAbsent(json: unknown, path: readonly PropertyKey[]): boolean {
  let value: unknown = json;
  for (const part of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return true;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return false;
}

/** One line per problem: `keys[0].origin: unknown field`, `apps: missing (required)`. */
function describeIssues(json: unknown, issues: readonly z.core.$ZodIssue[]): string[] {
  const problems: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        problems.push(`${fieldPath([...issue.path, key])}: unknown field`);
    } else if (
      issue.code === 'invalid_type' &&
      issue.path.length > 0 &&
      isAbsent(json, issue.path)
    ) {
      problems.push(`${fieldPath(issue.path)}: missing (required)`);
    } else {
      problems.push(`${fieldPath(issue.path)}: ${issue.message}`);
    }
  }
  return problems;
}

/**
 * Every field that must be unique and is not, named by its place: app ids, key ids, and key
 * hashes (compared in lower case, as either case is accepted). Two keys with one hash would
 * make which record answers for that key depend on order: disabling one would leave the key
 * working through the other.
 */
function duplicateProblems(data: KeyRegistryData): string[] {
  const problems: string[] = [];
  /** `values[i]` lives at `${list}[i].${field}`; a value's text is shown unless `hidden`. */
  const unique = (list: string, field: string, values: string[], what: string, hidden = false) => {
    const first = new Map<string, number>();
    for (const [i, value] of values.entries()) {
      const earlier = first.get(value);
      if (earlier === undefined) {
        first.set(value, i);
        continue;
      }
      const shown = hidden ? '' : ` ${value}`;
      problems.push(`${list}[${i}].${field}: duplicate ${what}${shown} (as ${list}[${earlier}])`);
    }
  };
  unique(
    'apps',
    'id',
    data.apps.map((a) => a.id),
    'app id',
  );
  unique(
    'keys',
    'id',
    data.keys.map((k) => k.id),
    'key id',
  );
  const hashes = data.keys.map((k) => k.sha256.toLowerCase());
  unique('keys', 'sha256', hashes, 'key hash', true);
  return problems;
}

/** Parses key file text; throws a KeyFileError naming every problem and its field. */
export function parseKeyFile(text: string): KeyRegistryData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new KeyFileError(`key file is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = keyFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new KeyFileError(
      `key file is invalid: ${describeIssues(json, parsed.error.issues).join('; ')}`,
    );
  }
  const data = parsed.data;
  const problems = duplicateProblems(data);
  if (problems.length > 0) throw new KeyFileError(`key file is invalid: ${problems.join('; ')}`);
  return data;
}

/**
 * How a registry is laid out as text: `pretty` for the key file (indented, final newline:
 * diffable, hand-editable); `compact` for the one string in Redis (the two arrays only, always
 * in this order, so one registry has one text: the compare-and-set token and its revision).
 */
export type RegistryLayout = 'pretty' | 'compact';

/**
 * The registry as stored, in `layout` (default `pretty`). Every writer, the key file's and
 * Redis's, goes through here: it throws a KeyFileError rather than return text that
 * `parseKeyFile` would refuse, so no writer (the key CLI included) can store a registry the
 * service would not load.
 */
export function serializeKeyFile(data: KeyRegistryData, layout: RegistryLayout = 'pretty'): string {
  const text =
    layout === 'pretty'
      ? `${JSON.stringify(data, null, 2)}\n`
      : JSON.stringify({ apps: data.apps, keys: data.keys });
  parseKeyFile(text);
  return text;
}

/** A new random API key (URL-safe, 256 bits): printed once, stored only as its hash. */
export function generateApiKey(): string {
  return `rk_${randomBytes(32).toString('base64url')}`;
}
