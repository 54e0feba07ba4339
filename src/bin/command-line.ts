/**
 * The command-line start every producer shares: parse the arguments, print the usage on
 * `--help`, and on a bad argument print the reason with the usage and exit 2 (a usage error,
 * told apart from a run that failed).
 */

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
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(usage);
    return undefined;
  }
  return args;
}
