/**
 * Internal: the wait of database and storage requests for a session manager's restore under way,
 * so that a call made while `initialize()` still reads the storage does not go out with the API
 * key (Row Level Security would answer it as for no user: no rows, and no error).
 *
 * @module
 */

import type { ServiceResult } from "./result.ts";
import { success } from "./result.ts";
import { untilCancelled } from "./_abort.ts";
import { deadline } from "./_deadline.ts";
import {
  request,
  type ResponseBodies,
  type ResponseType,
  type TransportContext,
  type TransportRequest,
  type TransportResponse,
} from "./transport.ts";

/**
 * Restores under way from no session held, by base client (one per session manager restoring
 * into it): each resolves once its manager holds what it found (or found none). The managers add
 * and remove their own; the transport never reads them (the verify-only bundle has no byte to
 * spare).
 */
export const tokenWaits: WeakMap<object, Set<Promise<unknown>>> = /* @__PURE__ */ new WeakMap();

/**
 * Sends `req` through `send` at once, or, when it would carry `client`'s own token (credentials
 * `"token"`, no token for the call) while a restore into `client` is under way, once that restore
 * has settled. The call's `timeout` (the client's when absent) bounds the wait and the request
 * together, counted from now, and its `signal` ends the wait (`Failure(CANCELLED)`). A `timeout`
 * or `signal` the transport refuses is left to it: such a call is sent at once.
 *
 * @param client The base client whose token the request carries.
 * @param req The request.
 * @param send What sends it (through `client`, or a context derived from it).
 * @returns The answer.
 */
export function afterTokenWait<Q extends TransportRequest<ResponseType>, T>(
  client: TransportContext,
  req: Q,
  send: (req: Q) => Promise<ServiceResult<T>>,
): Promise<ServiceResult<T>> {
  // The common case first: no restore under way, nothing more is read.
  const waits = tokenWaits.get(client);
  if (!waits?.size) return send(req);
  const signal = req.signal;
  const ms = req.timeout ?? client.timeout;
  if (
    (req.credentials ?? "token") !== "token" || req.accessToken ||
    (signal != null && typeof signal.addEventListener !== "function") ||
    typeof ms !== "number" || !(ms >= 0)
  ) {
    return send(req);
  }
  const within = deadline(req.timeout, client.timeout);
  const settled = () => success(undefined);
  const all = Promise.all([...waits]);
  return within((timeout) => untilCancelled(() => all.then(settled, settled), signal, timeout))
    .then((r) => r.ok ? within((timeout) => send({ ...req, timeout })) : r);
}

/**
 * {@linkcode request} through {@linkcode afterTokenWait}: what storage operations send.
 *
 * @param client The base client whose token the request carries.
 * @param req The request.
 * @param ctx The context it goes through (`client`, or one derived from it).
 * @returns The answer.
 */
export function requestAfterRestore<R extends ResponseType = "json">(
  client: TransportContext,
  req: TransportRequest<R>,
  ctx: TransportContext = client,
): Promise<ServiceResult<TransportResponse<ResponseBodies[R]>>> {
  return afterTokenWait(client, req, (r) => request(ctx, r));
}
