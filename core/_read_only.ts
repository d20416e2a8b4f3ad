/**
 * Internal: a read-only view of a flow.
 *
 * @module
 */

import type { StateFlow } from "./state_flow.ts";

/**
 * A {@linkcode StateFlow} over `flow` that has no setter: the flows a paginator or an upload hands
 * out are the library's own state, which a JavaScript caller (or a cast) could otherwise set, ending
 * a paginator early or moving its next offset.
 *
 * @param flow The flow to show.
 * @returns Its read-only view.
 */
export function readOnly<T>(flow: StateFlow<T>): StateFlow<T> {
  return {
    get value(): T {
      return flow.value;
    },
    subscribe: (listener) => flow.subscribe(listener),
    [Symbol.asyncIterator]: () => flow[Symbol.asyncIterator](),
  };
}
