import { fork } from 'node:child_process';

/**
 * Runs a benchmark's child script (`args` on its command line, `execArgv` for its Node) and
 * resolves with the one message it sends its parent; rejects, naming `what`, when it exits
 * without one or with an error.
 */
export function forkSample<T>(child: string, args: readonly string[], execArgv: readonly string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const process = fork(child, [...args], { execArgv: [...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let sample: T | null = null;
    process.on('message', (message) => {
      sample = message as T;
    });
    process.on('error', reject);
    process.on('exit', (code) => {
      if (code === 0 && sample !== null) resolve(sample);
      else reject(new Error(`${what} exited with code ${code} without a report`));
    });
  });
}
