/**
 * Runs a DSL block (`(w) => w.eq(...)`) on its builder.
 *
 * @module
 */

import { isThenable, settleQuietly } from "../core/_thrown.ts";

/**
 * Calls `block` with `builder`. Anything else than a function (a supabase-js
 * match object, say) is a clear `TypeError`, and so is a block that returns a
 * promise: an `async` block adds the filters after its first `await` only
 * after the request has been built and sent, and a `delete` or `update`
 * without them would reach every row. Its promise is settled quietly.
 *
 * @param block The block.
 * @param builder The builder it adds to.
 * @throws {TypeError} When `block` is not a function or returns a promise.
 */
export function runBlock<B>(block: (b: B) => unknown, builder: B): void {
  if (typeof block !== "function") {
    throw new TypeError(
      `Cannot build the query as 'block' must be a function such as (w) => w.eq(...): current value is ${typeof block}`,
    );
  }
  const result = block(builder);
  if (isThenable(result)) {
    settleQuietly(result);
    throw new TypeError(
      "Cannot build the query as the block returned a promise: a block must add its filters synchronously (no async or await)",
    );
  }
}
