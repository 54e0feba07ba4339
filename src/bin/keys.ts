/**
 * `npm run keys -- <command>`: administers apps and API keys in the configured key store.
 * A new key is printed once and only its SHA-256 hash is stored.
 */
import { parseArgs } from 'node:util';
import { generateApiKey, KeyFileError } from '../keys/key-file-format';
import { ConfigError, loadConfig } from '../config';
import * as commands from '../keys/key-commands';
import { openKeyAdmin, type KeyAdmin } from '../wiring/keys';
import { parseSince } from '../domain/usage-report';
import { usageTable } from '../keys/usage-table';
import { openUsageReader, usageReport, UsageFileError } from '../wiring/usage';
import { exitWhenWritten, watchOutputErrors } from '../shared/flushed-exit';
import { printable, printableValue } from '../shared/printable';

watchOutputErrors();

/**
 * Everything the command prints goes through here: control characters in what it prints (ids
 * and fields from the registry, usage rows) are shown escaped, never sent to the terminal.
 */
const out = (text: string) => process.stdout.write(printable(text));
/** An argument echoed back, inside a line. */
const shown = (value: string | undefined) => printableValue(String(value));

const USAGE = `usage: npm run keys -- <command> [args] [--file keys.json]
(store: --file, else RADAR_KEYS_FILE, else ./keys.json without REDIS_URL, else Redis)
  list
  create-app <app-id>
  create-key <key-id> --app <app-id> [--app <app-id> ...] [--limit <requests-per-window>]
             [--origin <origin> ...] [--require-origin]
  set-origins <key-id> [--origin <origin> ...]   (exact https://a.example.com or https://*.example.com;
                                                  no --origin: any origin)
  require-origin <key-id> | allow-no-origin <key-id>
  disable-key <key-id> | enable-key <key-id> | remove-key <key-id>
  disable-app <app-id> | enable-app <app-id> | remove-app <app-id>
  usage [--key <key-id>] [--app <app-id>] [--since 24h|7d] [--json]
        (requests, bytes, refused, peak hour and share of the limit per key; from Redis with
         REDIS_URL, else RADAR_USAGE_FILE or usage.json beside the key file)`;

/**
 * The configured registry: `--file`, else `RADAR_KEYS_FILE` (or ./keys.json in embedded
 * mode), else Redis when `REDIS_URL` is set.
 */
function openAdmin(file: string | undefined): KeyAdmin {
  if (file !== undefined) return openKeyAdmin({ kind: 'file', path: file });
  return openKeyAdmin(loadConfig(process.env).keys);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: 'string' },
      app: { type: 'string', multiple: true },
      limit: { type: 'string' },
      origin: { type: 'string', multiple: true },
      'require-origin': { type: 'boolean' },
      key: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, target] = positionals;
  if (values.help || command === undefined) {
    out(`${USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (command === 'usage') return usage(values);
  const admin = openAdmin(values.file);
  const { store } = admin;
  try {
    const need = (what: string) => {
      if (target === undefined) throw new commands.KeyCommandError(`${command} needs a ${what}`);
      return target;
    };
    switch (command) {
      case 'list':
        // Listing a registry that does not exist is a typo in the path, not an empty list.
        if (!(await admin.exists()))
          throw new commands.KeyCommandError(`${admin.describe} does not exist`);
        out(`${commands.describe(await store.load())}\n`);
        return 0;
      case 'create-app':
        await store.update((data) => commands.createApp(data, need('app id')));
        out(`app ${shown(target)} created\n`);
        return 0;
      case 'create-key': {
        const apiKey = generateApiKey();
        const limit = values.limit === undefined ? undefined : Number(values.limit);
        await store.update((data) =>
          commands.createKey(data, need('key id'), values.app ?? [], apiKey, limit, {
            origins: values.origin ?? [],
            requireOrigin: values['require-origin'] ?? false,
          }),
        );
        out(`key ${shown(target)} created. It is shown only this once:\n${apiKey}\n`);
        return 0;
      }
      case 'disable-key':
      case 'enable-key':
        await store.update((data) =>
          commands.setKeyDisabled(data, need('key id'), command === 'disable-key'),
        );
        break;
      // Key and app commands are parallel by design (same verbs, same store update).
      case 'disable-app':
      case 'enable-app':
        await store.update((data) =>
          commands.setAppDisabled(data, need('app id'), command === 'disable-app'),
        );
        break;
      case 'set-origins':
        await store.update((data) =>
          commands.setKeyOrigins(data, need('key id'), values.origin ?? []),
        );
        break;
      case 'require-origin':
      case 'allow-no-origin':
        await store.update((data) =>
          commands.setKeyRequireOrigin(data, need('key id'), command === 'require-origin'),
        );
        break;
      case 'remove-key':
        await store.update((data) => commands.removeKey(data, need('key id')));
        break;
      case 'remove-app':
        await store.update((data) => commands.removeApp(data, need('app id')));
        break;
      default:
        throw new commands.KeyCommandError(`unknown command ${command}\n${USAGE}`);
    }
  } finally {
    await admin.close();
  }
  out(`${shown(command)} ${shown(target)}: done\n`);
  return 0;
}

/**
 * `usage`: the report of the configured usage store (the key file given with `--file` puts the
 * usage file beside it, as a replica would), with each key's apps and limit from the registry.
 */
async function usage(values: {
  file?: string;
  key?: string;
  app?: string[];
  since?: string;
  json?: boolean;
}): Promise<number> {
  const hours = parseSince(values.since ?? '24h');
  if (typeof hours === 'string') throw new commands.KeyCommandError(hours);
  if ((values.app?.length ?? 0) > 1) throw new commands.KeyCommandError('usage takes one --app');
  const config = loadConfig(
    values.file === undefined ? process.env : { ...process.env, RADAR_KEYS_FILE: values.file },
  );
  const admin = openAdmin(values.file);
  try {
    if (!(await admin.exists()))
      throw new commands.KeyCommandError(`${admin.describe} does not exist`);
    const registry = await admin.store.load();
    const where =
      config.usage.store.kind === 'file' ? `usage file ${config.usage.store.path}` : 'Redis';
    const reader = await openUsageReader(config.usage).catch((err: Error) => {
      throw new commands.KeyCommandError(`cannot read usage from ${where}: ${err.message}`);
    });
    try {
      const report = await usageReport(reader.store, registry, config.rate, {
        hours,
        ...(values.key !== undefined ? { key: values.key } : {}),
        ...(values.app?.[0] !== undefined ? { app: values.app[0] } : {}),
      }).catch((err: Error) => {
        if (err instanceof UsageFileError) throw err;
        throw new commands.KeyCommandError(`cannot read usage from ${where}: ${err.message}`);
      });
      out(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${usageTable(report)}\n`);
    } finally {
      await reader.close();
    }
  } finally {
    await admin.close();
  }
  return 0;
}

main(process.argv.slice(2)).then(exitWhenWritten, (err: unknown) => {
  const known =
    err instanceof commands.KeyCommandError ||
    err instanceof ConfigError ||
    err instanceof KeyFileError ||
    err instanceof UsageFileError;
  process.stderr.write(
    printable(`keys: ${known ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`),
  );
  exitWhenWritten(known ? 1 : 2);
});
