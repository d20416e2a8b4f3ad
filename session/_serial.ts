/**
 * Storage calls run one after another, each after the one before it has
 * settled, or once that one has been pending for {@linkcode STORAGE_WAIT_MS};
 * and a call that has not settled after that long rejects with a
 * `TimeoutError`: a storage call that never settles must freeze neither its
 * caller nor every later call.
 *
 * @module
 */

/** How long a storage call waits for a predecessor that does not settle. */
export const STORAGE_WAIT_MS = 10_000;

function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(), ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    promise.then(done, done);
  });
}

function within<T>(op: () => T | Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new DOMException(`The session storage did not settle within ${ms} ms`, "TimeoutError"),
        ),
      ms,
    );
    const settle = (error: unknown, value?: T | PromiseLike<T>, failed = true) => {
      clearTimeout(timer);
      if (failed) reject(error);
      else resolve(value as T);
    };
    let result: T | Promise<T>;
    try {
      result = op(); // at once, as before this bound: callers count on the call having started
    } catch (error) {
      return settle(error);
    }
    Promise.resolve(result).then((value) => settle(null, value, false), (error) => settle(error));
  });
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
    const run = (this.#pending ? waitAtMost(this.#last, STORAGE_WAIT_MS) : this.#last).then(
      call,
      call,
    );
    const settled = run.then(() => {}, () => {});
    this.#last = settled;
    this.#pending = true;
    settled.then(() => {
      if (this.#last === settled) this.#pending = false;
    });
    return run;
  }
}
