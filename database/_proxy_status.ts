/**
 * PostgREST's error code from its `Proxy-Status` header, for HEAD answers (which have no body).
 */

import { failure, type ServiceResult } from "../core/result.ts";

/**
 * PostgREST 13 names every error in `Proxy-Status` (RFC 9209), as `PostgREST; error=PGRST116`
 * (`errorResponseFor` in its Error.hs). Only a member named PostgREST counts: a gateway's own
 * member names the gateway's error, not the database's. PostgREST's member is the first (each
 * proxy appends its own).
 */
const PROXY_STATUS = /^\s*PostgREST\s*;(?:[^,]*;)?\s*error="?([\w.-]{1,32})"?\s*(?:[;,]|$)/;

/**
 * PostgREST's error code in a `Proxy-Status` value, or null when the value has none.
 *
 * @param value The header value.
 * @returns The code.
 */
export function proxyStatusCode(value: string | null | undefined): string | null {
  // null and undefined read as the texts "null" and "undefined", which name no code.
  return PROXY_STATUS.exec(value as string)?.[1] ?? null;
}

/**
 * A HEAD call's failure with the code its answer gave only in `Proxy-Status`: a HEAD answer has
 * no body, so the transport found no code. A failure with a code, without a status (no answer),
 * or with another status than `response`'s (an earlier attempt's answer) is left as it is.
 *
 * @param r The call's result.
 * @param response The last answer fetch gave, if any.
 * @returns The result, its failure given the code.
 */
export function withProxyStatus<T>(
  r: ServiceResult<T>,
  response: Response | undefined,
): ServiceResult<T> {
  if (r.ok || r.error.code !== null || r.error.status !== response?.status) return r;
  const code = proxyStatusCode(response.headers?.get?.("proxy-status"));
  if (code === null) return r;
  return failure({
    ...r.error,
    code,
    // The code names the error (PostgREST's documented table); the message says where it is from.
    message: `${r.error.message}: PostgREST error ${code} (from Proxy-Status)`,
  });
}
