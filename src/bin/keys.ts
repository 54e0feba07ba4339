/**
 * `npm run keys -- <command>`: administers apps and API keys in the configured key store.
 * A new key is printed once and only its SHA-256 hash is stored.
 */
import { parseArgs } from 'node:util';
import { generateApiKey, KeyFileError, readKeyFile, writeKeyFile } from '../adapters/key-file';
import { ConfigError, loadConfig } from '../config';
import type { KeyRegistryData } from '../domain/key-registry';
import * as commands from '../keys/key-commands';

const USAGE = `usage: npm run keys -- <command> [args] [--file keys.json]
  list
  create-app <app-id>
  create-key <key-id> --app <app-id> [--app <app-id> ...] [--limit <requests-per-window>]
  disable-key <key-id> | enable-key <key-id> | remove-key <key-id>
  disable-app <app-id> | enable-app <app-id> | remove-app <app-id>`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: 'string' },
      app: { type: 'string', multiple: true },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, target] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  const file = values.file ?? loadConfig(process.env).keysFile;
  if (file === undefined) throw new commands.KeyCommandError('no key file configured (set RADAR_KEYS_FILE or pass --file)');

  const load = async (): Promise<KeyRegistryData> => {
    try {
      return await readKeyFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { apps: [], keys: [] };
      throw err;
    }
  };
  const data = await load();
  const need = (what: string) => {
    if (target === undefined) throw new commands.KeyCommandError(`${command} needs a ${what}`);
    return target;
  };

  switch (command) {
    case 'list':
      process.stdout.write(`${commands.describe(data)}\n`);
      return 0;
    case 'create-app':
      await writeKeyFile(file, commands.createApp(data, need('app id')));
      process.stdout.write(`app ${target} created\n`);
      return 0;
    case 'create-key': {
      const apiKey = generateApiKey();
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      await writeKeyFile(file, commands.createKey(data, need('key id'), values.app ?? [], apiKey, limit));
      process.stdout.write(`key ${target} created. It is shown only this once:\n${apiKey}\n`);
      return 0;
    }
    case 'disable-key':
    case 'enable-key':
      await writeKeyFile(file, commands.setKeyDisabled(data, need('key id'), command === 'disable-key'));
      break;
    case 'disable-app':
    case 'enable-app':
      await writeKeyFile(file, commands.setAppDisabled(data, need('app id'), command === 'disable-app'));
      break;
    case 'remove-key':
      await writeKeyFile(file, commands.removeKey(data, need('key id')));
      break;
    case 'remove-app':
      await writeKeyFile(file, commands.removeApp(data, need('app id')));
      break;
    default:
      throw new commands.KeyCommandError(`unknown command ${command}\n${USAGE}`);
  }
  process.stdout.write(`${command} ${target}: done\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known =
      err instanceof commands.KeyCommandError || err instanceof ConfigError || err instanceof KeyFileError;
    process.stderr.write(`keys: ${known ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`);
    process.exit(known ? 1 : 2);
  },
);
