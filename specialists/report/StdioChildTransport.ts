import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

/** What the child may see of the environment: the variables a login shell would have, never keys. */
const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/**
 * An MCP client transport over the stdio of a child process (like the SDK's
 * `StdioClientTransport`), whose child can be released: after `unref()` an idle connection does not
 * keep the parent process alive, and the child ends when the parent does (its stdin closes).
 * `ref()` holds the parent while a request is in flight.
 */
export class StdioChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The last 1,000 characters the child wrote to stderr. */
  stderr = '';
  /** The protocol version the client and server agreed on (set by the client after `initialize`). */
  protocolVersion: string | null = null;
  /** The JSON-RPC id of the last request sent (read right after a call starts, to name it in a trace). */
  lastRequestId: string | null = null;
  private child: ChildProcess | null = null;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly command: string, private readonly args: readonly string[]) {}

  /** The child's process id once started. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    const env: NodeJS.ProcessEnv = {};
    for (const key of INHERITED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
    const child = spawn(this.command, this.args, { env, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-1000);
    });
    child.stdin!.on('error', (error) => this.onerror?.(error));
    child.once('close', () => {
      this.child = null;
      this.onclose?.();
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
    });
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) this.lastRequestId = String(message.id);
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server process has ended'));
    return new Promise((resolve) => (stdin.write(serializeMessage(message)) ? resolve() : stdin.once('drain', resolve)));
  }

  /** Keeps the parent process alive while the child runs (for a request in flight). */
  ref(): void {
    this.child?.ref();
    for (const stream of [this.child?.stdin, this.child?.stdout, this.child?.stderr]) (stream as { ref?: () => void } | null | undefined)?.ref?.();
  }

  /** Lets the parent process end while the child idles; the child then sees its stdin close and ends. */
  unref(): void {
    this.child?.unref();
    for (const stream of [this.child?.stdin, this.child?.stdout, this.child?.stderr]) (stream as { unref?: () => void } | null | undefined)?.unref?.();
  }

  /** Ends the child at once (SIGKILL), for a server that has stopped answering; `onclose` follows. */
  kill(): void {
    this.child?.kill('SIGKILL');
  }

  /** Closes the child's stdin (the server ends on its own), then ends it if it lingers. */
  async close(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    // Whoever awaits the close is held until the child has ended, even when it idled unreferenced.
    this.ref();
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    timer.unref();
    await closed;
    clearTimeout(timer);
  }
}
