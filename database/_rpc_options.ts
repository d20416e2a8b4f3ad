/**
 * Internal: the check that a function call's options hold only options.
 *
 * @module
 */

import { showValue } from "../core/_show.ts";

const rpcOptionNames = new Set([
  "signal",
  "timeout",
  "headers",
  "schema",
  "params",
  "queryParams",
  "format",
  "count",
  "stripNulls",
  "rollback",
  "maxAffected",
  "explain",
  "contentType",
  "retry",
  "block",
  "validator",
]);

/**
 * Refuses a function's arguments given as its options (supabase-js's `rpc(fn, args)`): they
 * would be dropped, and the function called without them. Arguments whose names are all option
 * names (`{ count: 5 }`) cannot be told from options, and go as those.
 *
 * @param options The call's options.
 * @throws {TypeError} When they are no object, or hold a key that is no option.
 */
export function checkRpcOptions(options: object): void {
  // A string or a number there (a function's one argument, say) was taken as no options.
  if (typeof options !== "object") {
    throw new TypeError(
      `Cannot call the function as 'options' must be an object such as { params: { ... } }: current value is ${
        showValue(options)
      }`,
    );
  }
  const unknown = Object.keys(options).filter((k) => !rpcOptionNames.has(k));
  if (unknown.length > 0) {
    throw new TypeError(
      `Cannot call the function as ${unknown.slice(0, 3).map((k) => showValue(k)).join(", ")} ${
        unknown.length > 1 ? "are no options" : "is no option"
      } of the call: pass the function's arguments as { params: { ... } }`,
    );
  }
}
