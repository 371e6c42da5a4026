import { spawn } from 'node:child_process';

/** What a finished `switchboard` process left behind. */
export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real command (`bin/switchboard.js`) without blocking the test process, so several can
 * run at once (`Promise.all`) and a server in this process can answer them. SQLite and the model
 * come from `env` (PostgreSQL and OpenAI are turned off unless `env` turns them on). A process
 * still running after `killAfterMs` (default 300 s: far beyond any command here, even on a
 * busy machine; it only ends a hang) is killed, so a hang fails the test instead of stalling it.
 */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; killAfterMs?: number; cwd?: string } = {}): Promise<CliResult> {
  // Colour is off unless the test asks for it (a FORCE_COLOR in the runner's environment would colour every line).
  const { FORCE_COLOR: _force, ...inherited } = process.env;
  const child = spawn(process.execPath, [new URL('../../bin/switchboard.js', import.meta.url).pathname, ...args], {
    env: { ...inherited, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 300_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/**
 * Runs several commands, at most `concurrency` at a time (each start costs a couple of CPU seconds
 * of loading; dozens at once on a small machine only make each one slower), in the given order.
 */
export async function runCliAll(
  commands: ReadonlyArray<readonly string[]>,
  options: Parameters<typeof runCli>[1] & { concurrency?: number } = {},
): Promise<CliResult[]> {
  const results: CliResult[] = new Array(commands.length);
  let next = 0;
  const worker = async () => {
    while (next < commands.length) {
      const i = next++;
      results[i] = await runCli(commands[i]!, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 3, commands.length) }, worker));
  return results;
}
