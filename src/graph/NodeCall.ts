import type { AnyActorRef, Subscription } from 'xstate';
import type { SignalSource } from './nodeActor.js';

/**
 * One execution of a node that its machine runs directly (no child actor): the node's abort
 * signal, made only if the node reads it, and whether its outcome still belongs to the run. It is
 * abandoned (the signal aborts) when the run is cancelled, or when the machine actor stops or
 * fails while the node is in flight.
 */
export class NodeCall implements SignalSource {
  readonly #machine: AnyActorRef;
  #controller: AbortController | null = null;
  #watch: Subscription | null = null;
  /** Settled or abandoned: nothing more happens to this call. */
  #over = false;
  #abandoned = false;

  constructor(machine: AnyActorRef) {
    this.#machine = machine;
  }

  /** True once the call is abandoned or its machine is no longer running. */
  get aborted(): boolean {
    return this.#abandoned || (!this.#over && this.#machine.getSnapshot().status !== 'active');
  }

  /** The node's abort signal; made on first read, already aborted if the call is. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.aborted) {
        this.#controller.abort();
      } else if (!this.#over) {
        // A stopped machine tells its observers `complete`; only a node that holds a signal needs to know.
        const abandon = () => this.abandon();
        this.#watch = this.#machine.subscribe({ complete: abandon, error: abandon });
      }
    }
    return this.#controller.signal;
  }

  /** The node has finished: true when its outcome is to be delivered to the machine. */
  settle(): boolean {
    if (this.#over) return false;
    this.#over = true;
    this.#watch?.unsubscribe();
    return this.#machine.getSnapshot().status === 'active';
  }

  /** The run no longer waits for this node: its signal aborts and its outcome is dropped. */
  abandon(): void {
    if (this.#over) return;
    this.#over = true;
    this.#abandoned = true;
    this.#watch?.unsubscribe();
    this.#controller?.abort();
  }
}
