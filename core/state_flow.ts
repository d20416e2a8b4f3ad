/**
 * A value that changes over time and can be observed: the TypeScript form of
 * the interface document's `StateFlow`.
 *
 * @module
 */

import { settleQuietly } from "./_thrown.ts";

/** A listener of a {@linkcode StateFlow}. */
export type StateListener<T> = (value: T) => void;

/**
 * A read-only observable value.
 *
 * `subscribe` calls the listener at once with the current value and then on
 * every change; it returns a function that unsubscribes. The async iterator
 * yields the current value first and then the latest value after each change
 * (intermediate values may be conflated, as with Kotlin's `StateFlow`).
 *
 * @example Watching a flow
 * ```ts
 * import { MutableStateFlow } from "@fetchbase/fetchbase/core";
 *
 * const flow = new MutableStateFlow(0);
 * const stop = flow.subscribe((v) => console.log("now", v)); // now 0
 * flow.value = 1; // now 1
 * stop();
 * ```
 */
export interface StateFlow<T> {
  /** The current value. */
  readonly value: T;
  /**
   * Calls `listener` now and on every change.
   *
   * @param listener Called with each value.
   * @returns A function that unsubscribes.
   */
  subscribe(listener: StateListener<T>): () => void;
  /**
   * Yields the current value, then the latest value after each change
   * (conflated: a value equal to the last one yielded is not yielded again).
   */
  [Symbol.asyncIterator](): AsyncIterator<T>;
}

/**
 * A {@linkcode StateFlow} whose owner can set the value. Setting a value equal
 * (`Object.is`) to the current one notifies nobody. A listener that throws
 * (or an async one that rejects) reaches no other listener and never breaks
 * the setter.
 *
 * @example Owning a flow
 * ```ts
 * import { MutableStateFlow, type StateFlow } from "@fetchbase/fetchbase/core";
 *
 * const owned = new MutableStateFlow("idle");
 * const exposed: StateFlow<string> = owned;
 * owned.value = "busy";
 * console.log(exposed.value); // busy
 * ```
 */
export class MutableStateFlow<T> implements StateFlow<T> {
  #value: T;
  #listeners: Set<StateListener<T>> = new Set();
  /** What ends each open iterator, for {@linkcode MutableStateFlow.close}. */
  #iterators: Set<() => void> = new Set();
  #closed = false;
  #version = 0;

  /**
   * Creates a flow holding `initial`.
   *
   * @param initial The first value.
   */
  constructor(initial: T) {
    this.#value = initial;
  }

  /** The current value; setting it notifies listeners when it changes. */
  get value(): T {
    return this.#value;
  }

  set value(next: T) {
    if (Object.is(next, this.#value)) return;
    this.#value = next;
    const version = ++this.#version;
    for (const listener of [...this.#listeners]) {
      // A listener that set a newer value has had it delivered to everyone:
      // the rest must not receive this older one after it.
      if (version !== this.#version) return;
      if (!this.#listeners.has(listener)) continue;
      try {
        listener(next);
      } catch {
        // A failing listener must not disturb the owner or other listeners.
      }
    }
  }

  /**
   * Ends the flow for its observers: listeners are dropped and iterators finish (a `for await`
   * loop over it ends, once it has had the latest value; one started later yields the current
   * value and ends). The value stays readable and settable; a later change reaches only
   * listeners subscribed after.
   *
   * @example Ending iteration
   * ```ts
   * import { MutableStateFlow } from "@fetchbase/fetchbase/core";
   *
   * const flow = new MutableStateFlow(0);
   * const seen: number[] = [];
   * const loop = (async () => { for await (const v of flow) seen.push(v); })();
   * await Promise.resolve();
   * flow.close();
   * await loop;
   * console.log(seen); // [ 0 ]
   * ```
   */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    for (const end of [...this.#iterators]) end();
  }

  /**
   * Calls `listener` now and on every change.
   *
   * @param listener Called with each value.
   * @returns A function that unsubscribes.
   */
  subscribe(listener: StateListener<T>): () => void {
    // Calls of anything else would be isolated, so it would fail without a word.
    if (typeof listener !== "function") {
      throw new TypeError("Cannot subscribe as 'listener' must be a function");
    }
    // An async listener's rejection is isolated like a throw.
    const own = (v: T) => settleQuietly(listener(v));
    this.#listeners.add(own);
    try {
      own(this.#value);
    } catch {
      // Same isolation as for later notifications.
    }
    return () => {
      this.#listeners.delete(own);
    };
  }

  /**
   * Iterates over the values; breaking out of the loop unsubscribes.
   *
   * @returns An async iterator.
   */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    let pending: { value: T } | null = null;
    let last: { value: T } | null = null;
    // Every waiting next() (several when not awaited one by one) is woken on a change.
    const waiters: Array<() => void> = [];
    const wakeAll = () => {
      for (const w of waiters.splice(0)) w();
    };
    // done: no more values at all (return()); ended: the flow was closed, and only what is
    // pending is still yielded.
    let done = false;
    let ended = false;
    const stop = this.subscribe((v) => {
      pending = { value: v };
      wakeAll();
    });
    const end = () => {
      ended = true;
      stop();
      this.#iterators.delete(end);
      wakeAll();
    };
    if (this.#closed) end();
    else this.#iterators.add(end);
    return {
      next: async (): Promise<IteratorResult<T>> => {
        while (!done) {
          if (pending) {
            const { value } = pending;
            pending = null;
            // Changed and changed back before this next(): nothing new to tell (as Kotlin's
            // StateFlow, whose collectors skip a value equal to the last one they saw).
            if (last && Object.is(last.value, value)) continue;
            last = { value };
            return { done: false, value };
          }
          if (ended) break;
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
        done = true;
        return { done: true, value: undefined };
      },
      return: (): Promise<IteratorResult<T>> => {
        done = true;
        end();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
