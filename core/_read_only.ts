/**
 * Internal: a read-only view of a flow.
 *
 * @module
 */

import type { StateFlow } from "./state_flow.ts";

/**
 * A {@linkcode StateFlow} over `flow` that has no setter: the flows a paginator or an upload hands
 * out are the library's own state, which a JavaScript caller (or a cast) could otherwise set, ending
 * a paginator early or moving its next offset. Its `value` is `current()` (the owner's state as it
 * now is, which it may set before the flow announces it), `flow.value` by default.
 *
 * @param flow The flow to show.
 * @param current What `value` reads.
 * @returns Its read-only view.
 */
export function readOnly<T>(flow: StateFlow<T>, current = (): T => flow.value): StateFlow<T> {
  return {
    get value(): T {
      return current();
    },
    subscribe: (listener) => flow.subscribe(listener),
    [Symbol.asyncIterator]: () => flow[Symbol.asyncIterator](),
  };
}
