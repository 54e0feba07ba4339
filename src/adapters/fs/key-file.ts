/**
 * The key store file format of DESIGN.md §3.2: parsing (validated with zod), and atomic
 * writes for the key CLI. Shared by the file key store and `npm run keys`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { KeyRegistryData } from '../../domain/key-registry';
import { originPatternProblem } from '../../domain/origin-policy';

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

/** Reads and parses a key file. */
export async function readKeyFile(file: string): Promise<KeyRegistryData> {
  return parseKeyFile(await fs.readFile(file, 'utf8'));
}

/** Writes a key file atomically (temp file + rename) so readers never see half a file. */
export async function writeKeyFile(file: string, data: KeyRegistryData): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  await fs.writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(temp, file);
}

/** A new random API key (URL-safe, 256 bits): printed once, stored only as its hash. */
export function generateApiKey(): string {
  return `rk_${randomBytes(32).toString('base64url')}`;
}
