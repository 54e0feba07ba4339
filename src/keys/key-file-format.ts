/**
 * The key registry format of DESIGN.md §3.2, whatever stores it (the key file, or one string
 * in Redis): parsing validated with zod, serialising, and new API keys. Pure: the stores in
 * `adapters/fs/` and `adapters/redis/` do the reading and writing.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { KeyRegistryData } from '../domain/key-registry';
import { originPatternProblem } from '../domain/origin-policy';

const id = z.string().regex(/^[A-Za-z0-9._~+/-]+$/, 'ids use letters, digits and . _ ~ + / -');

const originPattern = z.string().superRefine((value, ctx) => {
  const problem = originPatternProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const keyFileSchema = z.object({
  apps: z.array(z.object({ id, disabled: z.boolean().default(false) })).default([]),
  keys: z
    .array(
      z.object({
        id: z.string().min(1),
        sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex digits'),
        apps: z.array(z.string()).default([]),
        limit: z.number().int().positive().optional(),
        disabled: z.boolean().default(false),
        origins: z.array(originPattern).optional(),
        requireOrigin: z.boolean().optional(),
      }),
    )
    .default([]),
});

/** A key file that cannot be read as the DESIGN.md §3.2 format; the message says why. */
export class KeyFileError extends Error {}

/** Parses key file text; throws a KeyFileError naming every problem. */
export function parseKeyFile(text: string): KeyRegistryData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new KeyFileError(`key file is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = keyFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new KeyFileError(`key file is invalid: ${problems.join('; ')}`);
  }
  const data = parsed.data;
  const ids = new Set<string>();
  for (const key of data.keys) {
    if (ids.has(key.id)) throw new KeyFileError(`key file is invalid: duplicate key id ${key.id}`);
    ids.add(key.id);
  }
  return data;
}

/** The registry as stored: pretty JSON with a final newline (diffable, hand-editable). */
export function serializeKeyFile(data: KeyRegistryData): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** A new random API key (URL-safe, 256 bits): printed once, stored only as its hash. */
export function generateApiKey(): string {
  return `rk_${randomBytes(32).toString('base64url')}`;
}
