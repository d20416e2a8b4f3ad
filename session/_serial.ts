/**
 * Storage calls run one after another, each after the one before it has
 * settled, or once that one has been pending for {@linkcode STORAGE_WAIT_MS};
 * and a call that has not settled after that long rejects with a
 * `TimeoutError`: a storage call that never settles must freeze neither its
 * caller nor every later call.
 *
 * @module
 */

import { bounded } from "../core/_abort.ts";

/** How long a storage call waits for a predecessor that does not settle. */
export const STORAGE_WAIT_MS = 10_000;

/** Runs `op` at once (callers count on the call having started); rejects if it is late. */
async function within<T>(op: () => T | Promise<T>, ms: number): Promise<T> {
  const r = await bounded(Promise.resolve(op()), ms);
  if (r.kind === "done") return r.value;
  if (r.kind === "failed") throw r.error;
  throw new DOMException(`The session storage did not settle within ${ms} ms`, "TimeoutError");
}

/** A queue of storage calls (see the module's docs). */
export class SerialQueue {
  #last: Promise<unknown> = Promise.resolve();
  #pending = false;

  /**
   * Runs `op` after the calls queued before it.
   *
   * @param op The call.
   * @returns Its result.
   */
  run<T>(op: () => T | Promise<T>): Promise<T> {
    const call = () => within(op, STORAGE_WAIT_MS);
    const before = this.#pending ? bounded(this.#last, STORAGE_WAIT_MS) : this.#last;
    const run = before.then(call, call);
    const settled = run.then(() => {}, () => {});
    this.#last = settled;
    this.#pending = true;
    settled.then(() => {
      if (this.#last === settled) this.#pending = false;
    });
    return run;
  }
}
