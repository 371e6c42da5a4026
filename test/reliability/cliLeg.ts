import { spawn } from 'node:child_process';

/** How one `switchboard` process ended. */
export interface LegResult {
  args: string[];
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The process died of SIGKILL (its own kill switch, or ours on a trace line). */
  killed: boolean;
  /** It was still running after `hangMs` and was killed for it: a hang, never a planned kill. */
  hung: boolean;
}

/** Options for {@link cliLeg}. */
export interface LegOptions {
  env: Record<string, string>;
  /** SIGKILL the process once its stdout has this many lines (the live trace prints a line per step). */
  killAtLine?: number;
  /** A process still running after this long counts as hung (default 300 s: only ends a hang). */
  hangMs?: number;
}

/** Runs `node bin/switchboard.js …args` to its end (or its death) and reports how it ended. */
export function cliLeg(args: string[], options: LegOptions): Promise<LegResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, options.hangMs ?? 300_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.killAtLine !== undefined && stdout.split('\n').length - 1 >= options.killAtLine) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ args, pid: child.pid ?? -1, code, signal, stdout, stderr, killed: signal === 'SIGKILL' && !hung, hung });
    });
  });
}

/** The last line of a leg's stdout that parses as JSON (what `--json` printed). */
export function lastJson<T>(leg: LegResult): T | undefined {
  const lines = leg.stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line) as T;
    } catch {
      // a trace line: keep looking
    }
  }
  return undefined;
}
