/**
 * The command-line start every producer shares: parse the arguments, print the usage on
 * `--help`, and on a bad argument print the reason with the usage and exit 2 (a usage error,
 * told apart from a run that failed).
 */
import { ConfigError } from '../config';
import { exitWhenWritten } from '../shared/flushed-exit';

/**
 * Parses `argv` with `parse`; returns `undefined` after printing `usage` to stdout when the
 * arguments ask for help, and exits 2 with the reason and `usage` on stderr when `parse` throws.
 */
export function parseCommandLine<T extends { readonly help: boolean }>(
  argv: readonly string[],
  parse: (argv: string[]) => T,
  usage: string,
): T | undefined {
  let args: T;
  try {
    args = parse([...argv]);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    exitWhenWritten(2);
    return undefined;
  }
  if (args.help) {
    process.stdout.write(usage);
    return undefined;
  }
  return args;
}

/**
 * Ends an entry point whose start failed, once the message is written: a configuration error
 * exits 2 with its message (the operator's to fix, never a stack trace), anything else exits 1
 * with `describe(error)`.
 */
export function exitStartFailure(error: unknown, describe: (error: Error) => string): void {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    exitWhenWritten(2);
    return;
  }
  process.stderr.write(`${describe(error instanceof Error ? error : new Error(String(error)))}\n`);
  exitWhenWritten(1);
}
