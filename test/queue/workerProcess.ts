import { spawn, type ChildProcess } from 'node:child_process';

/** A `switchboard worker` process started by a test. */
export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  /** Every line it printed (stdout and stderr). */
  lines: string[];
  /** When it was spawned (epoch ms). */
  startedAt: number;
  /** When each of `lines` arrived (epoch ms). */
  times: number[];
  /** Resolves once it printed that it takes runs. */
  ready: Promise<void>;
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal by its pid (a no-op once it ended). */
  signal(signal: NodeJS.Signals): void;
}

/** Starts `node bin/switchboard.js …args worker …workerArgs` with `env` added to this process's. */
export function startWorker(args: { graphs: string; workerArgs?: string[] }, env: Record<string, string>): WorkerProcess {
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['bin/switchboard.js', '--graphs', args.graphs, 'worker', ...(args.workerArgs ?? [])], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const times: number[] = [];
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line === '') continue;
      lines.push(line);
      times.push(Date.now());
      if (/^worker .*: taking runs/.test(line)) onReady();
    }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  void exited.then(() => onReady());
  return {
    pid: child.pid ?? -1,
    child,
    lines,
    times,
    startedAt,
    ready,
    exited,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
