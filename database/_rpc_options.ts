/**
 * Internal: the check that a function call's options hold only options.
 *
 * @module
 */

import { showValue } from "../core/_show.ts";
import type { RpcGetOptions, RpcOptions } from "./client.ts";
import type { TypedRpcGetOptions, TypedRpcOptions } from "./rpc_typed.ts";

// Every option of the function calls, raw and typed: an option added to one of them and not here
// is a compile error (`_AllListed`), and a name here that is no option is one too (`satisfies`).
const names = [
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
] as const satisfies readonly RpcOptionName[];
type RpcOptionName =
  | keyof RpcOptions
  | keyof RpcGetOptions
  | keyof TypedRpcOptions<unknown>
  | keyof TypedRpcGetOptions<unknown>;
type NoneOf<T extends never> = T;
type _AllListed = NoneOf<Exclude<RpcOptionName, typeof names[number]>>;

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
  const unknown = Object.keys(options).filter((k) => !(names as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new TypeError(
      `Cannot call the function as ${unknown.slice(0, 3).map(showValue).join(", ")} ${
        unknown.length > 1 ? "are no options" : "is no option"
      } of the call: pass the function's arguments as { params: { ... } }`,
    );
  }
}
