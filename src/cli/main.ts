import { readFileSync } from 'node:fs';

const USAGE = `Usage: switchboard <command> [options]

Options:
  -h, --help      show this help
  -v, --version   print the version
`;

/** Runs the CLI with the given arguments and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  process.stderr.write(`switchboard: unknown command "${command}"\n\n${USAGE}`);
  return 2;
}
