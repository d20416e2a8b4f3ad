/**
 * Pure request shaping for PostgREST (Prefer, Accept, profiles, `select=`)
 * and the one send function every primitive uses.
 */

import { LimitError } from "./_guard.ts";
import type { BaseClient } from "../core/client.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import {
  request,
  requestBody,
  type TransportContext,
  type TransportRequest,
} from "../core/transport.ts";
import { withProxyStatus } from "./_proxy_status.ts";
import { unicodePattern } from "./_pattern.ts";
import { withFetch } from "../core/_with_fetch.ts";
import { afterTokenWait } from "../core/_token_wait.ts";
import {
  CountOption,
  type ExplainOptions,
  ResponseFormat,
  ReturnOption,
  UpsertResolution,
} from "./models.ts";
import { encodeComponent } from "../core/_uri.ts";
import { showValue } from "../core/_show.ts";

/** The longest URL sent; proxies commonly refuse more than 8 KiB. */
export const MAX_URL_LENGTH = 8192;

/** Media types of {@linkcode ResponseFormat} (ROWS and HEAD send none). */
export const FORMAT_ACCEPT: Readonly<Record<ResponseFormat, string | null>> = {
  ROWS: null,
  SINGLE: "application/vnd.pgrst.object+json",
  CSV: "text/csv",
  GEOJSON: "application/geo+json",
  HEAD: null,
};

/** A character of a PostgREST identifier (`pIdentifierChar`: a letter, a digit, `_` or `$`). */
const NAME_CHAR = /* @__PURE__ */ unicodePattern("^[\\p{L}0-9_$]$");

/**
 * Removes whitespace outside double quotes, as PostgREST clients do, but for one space between
 * two characters of a name: PostgREST's identifiers hold spaces, and a cast such as
 * `total::double precision` (which cannot be quoted) went as `::doubleprecision`, a type
 * PostgreSQL does not know.
 */
export function cleanColumns(columns: string): string {
  if (typeof columns !== "string") {
    throw new TypeError(
      `Cannot select as 'columns' must be text such as "id,name": current value is ${
        showValue(columns)
      }`,
    );
  }
  if (!/[\s"]/.test(columns)) return columns;
  let quoted = false;
  let out = "";
  // The last character written (reading it back from `out` flattened it: quadratic).
  let last = "";
  for (let i = 0; i < columns.length; i++) {
    const ch = columns[i];
    if (quoted && ch === "\\") {
      out += ch + (columns[++i] ?? ""); // an escaped character, `\"` included, stays as is
      continue;
    }
    // A quote opens only where a name or JSON key begins (PostgREST's `pQuotedValue`); elsewhere
    // it is part of an unquoted key (`dims->>12"in`), and the names after it stay quoted.
    if (ch === '"' && (quoted || /^$|[,(:>!.]/.test(last))) quoted = !quoted;
    if (!quoted && /\s/.test(ch)) {
      while (/\s/.test(columns[i + 1] ?? "")) i++;
      if (NAME_CHAR().test(last) && NAME_CHAR().test(columns[i + 1] ?? "")) out += " ";
      continue;
    }
    out += last = ch;
  }
  return out;
}

/** The `Accept` header for a format, null stripping and explain. */
export function acceptHeader(
  format: ResponseFormat,
  stripNulls: boolean | undefined,
  explain: ExplainOptions | undefined | null,
): string | null {
  if (typeof format !== "string" || !Object.hasOwn(FORMAT_ACCEPT, format)) {
    throw new TypeError(
      `Cannot build the request as 'format' is not a ResponseFormat: current value is ${
        showValue(format)
      }`,
    );
  }
  let accept = FORMAT_ACCEPT[format];
  if (stripNulls) {
    if (format !== ResponseFormat.ROWS && format !== ResponseFormat.SINGLE) {
      throw new TypeError("Cannot strip nulls as it applies only to ROWS and SINGLE formats");
    }
    accept = `${accept ?? "application/vnd.pgrst.array+json"};nulls=stripped`;
  }
  if (explain) {
    // PostgREST's media types hold plans as text or JSON only (PGRST107 otherwise).
    const plan = explain.format ?? "text";
    if (plan === "xml" || plan === "yaml") {
      throw new TypeError(
        `Cannot explain as PostgREST serves plans only as text or JSON: current format is ${plan}`,
      );
    }
    // Anything else would be written into the Accept header as it is.
    if (plan !== "text" && plan !== "json") {
      throw new TypeError(
        `Cannot explain as 'format' is not an ExplainFormat: current value is ${showValue(plan)}`,
      );
    }
    // The document: buffers and wal need analyze (PostgreSQL refuses WAL without it).
    if ((explain.buffers || explain.wal) && !explain.analyze) {
      throw new TypeError(
        `Cannot explain with '${explain.wal ? "wal" : "buffers"}' as it needs 'analyze: true'`,
      );
    }
    const options = (["analyze", "verbose", "settings", "buffers", "wal"] as const)
      .filter((k) => explain[k] === true).join("|");
    accept = `application/vnd.pgrst.plan+${plan}; for="${
      accept ?? "application/json"
    }"; options=${options};`;
  }
  return accept;
}

/** Preference directives, in PostgREST's syntax. */
export interface Preferences {
  count?: CountOption | null | undefined;
  returning?: ReturnOption | null | undefined;
  resolution?: UpsertResolution | null | undefined;
  missingDefault?: boolean | undefined;
  rollback?: boolean | undefined;
  maxAffected?: number | null | undefined;
}

/**
 * A preference's value, if it is one PostgREST knows (`TypeError` otherwise): PostgREST
 * ignores an unknown one, so a misspelt `count` would silently bring no count.
 */
function known(name: string, value: string, allowed: readonly string[]): string {
  if (!allowed.includes(value)) {
    throw new TypeError(
      `Cannot build the request as '${name}' must be ${allowed.slice(0, -1).join(", ")} or ${
        allowed.at(-1)
      }: current value is ${showValue(value)}`,
    );
  }
  return value;
}

/** The `Prefer` header value, or null when there is nothing to prefer. */
export function preferHeader(p: Preferences): string | null {
  const out: string[] = [];
  if (p.returning) {
    out.push(`return=${known("returning", p.returning, Object.values(ReturnOption))}`);
  }
  if (p.count) out.push(`count=${known("count", p.count, Object.values(CountOption))}`);
  if (p.resolution) {
    out.push(
      `resolution=${known("upsertResolution", p.resolution, Object.values(UpsertResolution))}`,
    );
  }
  if (p.missingDefault) out.push("missing=default");
  if (p.rollback) out.push("tx=rollback");
  if (p.maxAffected != null) {
    out.push("handling=strict", `max-affected=${p.maxAffected}`);
  }
  return out.length === 0 ? null : out.join(",");
}

/**
 * A function call's headers with `handling=lenient` (PostgREST's default) added when its final
 * `Prefer` (client-wide directives included) holds `tx=rollback` and names no handling:
 * PostgREST lists a handling it was given in `Preference-Applied`, so the answer of a function
 * call, which lists no `return=`, still says whether the rollback was applied. A handling
 * already named (a strict `max-affected` cap) is kept, and is listed as well.
 */
export function withRollbackEcho(headers: Record<string, string>): Record<string, string> {
  for (const k in headers) {
    const v = headers[k];
    if (k.toLowerCase() === "prefer" && TX_ROLLBACK.test(v) && !/\bhandling=/.test(v)) {
      return { ...headers, [k]: `${v},handling=lenient` };
    }
  }
  return headers;
}

/**
 * Refuses `explain` with `analyze` on a write that is not rolled back:
 * PostgreSQL runs an analyzed statement, and PostgREST commits it (the plan
 * answer skips `maxAffected`) unless the transaction is rolled back.
 */
export function checkExplainedWrite(
  explain: ExplainOptions | null | undefined,
  rollback: boolean | undefined,
): void {
  if (explain?.analyze && !rollback) {
    throw new TypeError(
      "Cannot explain the write with 'analyze' as 'rollback' is not set: PostgreSQL runs an analyzed statement and PostgREST commits it unless the transaction is rolled back (which its db-tx-end must allow)",
    );
  }
}

/** Throws the documented `RangeError` unless `maxAffected` is a positive integer. */
export function checkMaxAffected(value: number | null | undefined): void {
  if (value === undefined || value === null) return;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new LimitError(
      `Cannot limit affected rows as 'maxAffected' must be > 0: current value is ${
        showValue(value)
      }`,
    );
  }
}

/** Encodes a table or function name as one path segment. */
export function pathSegment(name: string, what: string): string {
  if (typeof name !== "string" || name.trim() === "") {
    throw new TypeError(`Cannot build the request as '${what}' must be a non-blank string`);
  }
  if (name === "." || name === "..") {
    // A dot segment: URL parsers resolve it into another route (`/rest/v1/`).
    throw new TypeError(`Cannot build the request as '${what}' cannot be ${name}`);
  }
  return encodeText(name);
}

/** A PostgREST request before transport. */
export interface PgRequest {
  /** HTTP method. */
  method: "GET" | "HEAD" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Route under `/rest/v1`, encoded. */
  path: string;
  /** Query pairs, in order. */
  pairs: ReadonlyArray<readonly [string, string]>;
  /** Request headers. */
  headers: Record<string, string>;
  /** Body, sent verbatim: text, or bytes (a function's one `bytea` argument). */
  body?: string | Uint8Array | undefined;
  /** Body media type. */
  contentType?: string | undefined;
  /** Whether the transport may retry. */
  retry: boolean;
  /** Cancellation. */
  signal?: AbortSignal | undefined;
  /** Timeout in milliseconds. */
  timeout?: number | undefined;
}

/** A PostgREST answer: body text and headers. */
export interface PgResponse {
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** Body text. */
  body: string;
}

/**
 * `encodeComponent` of a text, which is returned as it is when the call would not change it:
 * most keys and many values are such (`order`, `eq.false`), and the scan costs less than the call.
 */
function encodeText(value: string): string {
  if (typeof value !== "string") return encodeComponent(value);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // Kept as they are: letters, digits and `- _ . ! ~ * ' ( )` (39 to 57 without `+ , /`).
    if (
      !((c >= 97 && c <= 122) || (c >= 65 && c <= 90) ||
        (c >= 39 && c <= 57 && c !== 43 && c !== 44 && c !== 47) || c === 95 || c === 33 ||
        c === 126)
    ) return encodeComponent(value);
  }
  return value;
}

/** Encodes pairs into one query string (no `URL` mutation). */
export function encodePairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  let q = "";
  for (const [k, v] of pairs) {
    // encodeURIComponent leaves ( ) * ! ' unescaped, which query strings allow and PostgREST reads.
    q += (q === "" ? "" : "&") + encodeText(k) + "=" + encodeText(v);
  }
  return q;
}

function transportRequest(client: BaseClient, req: PgRequest): TransportRequest<"text"> | string {
  let query: string;
  try {
    query = encodePairs(req.pairs);
  } catch {
    // encodeURIComponent refuses a lone UTF-16 surrogate.
    return "Cannot send the request as a filter or parameter is not well-formed Unicode (it holds a lone surrogate)";
  }
  const length = client.url.length + 8 + req.path.length + 1 + query.length;
  if (length > MAX_URL_LENGTH) {
    return `Cannot send the request as its URL is ${length} characters long, over the safe limit of ${MAX_URL_LENGTH}; move large filters into an RPC`;
  }
  const init: TransportRequest<"text"> = {
    method: req.method,
    area: "rest",
    path: req.path,
    query,
    headers: req.headers,
    retry: req.retry,
    signal: req.signal,
    timeout: req.timeout,
    responseType: "text",
  };
  if (req.body !== undefined) {
    // supabase-js takes rows as values: here the primitives take JSON text, which fetch would
    // otherwise send as "[object Object]" (the typed helpers take values).
    if (typeof req.body !== "string" && !(req.body instanceof Uint8Array)) {
      return `Cannot send the request as its body must be text (JSON as a string; the typed helpers such as insertTyped take values): current value is ${
        showValue(req.body)
      }`;
    }
    if (req.contentType !== undefined && typeof req.contentType !== "string") {
      return `Cannot send the request as 'contentType' must be a string: current value is ${
        showValue(req.contentType)
      }`;
    }
    init.body = req.body;
    init.contentType = req.contentType ?? "application/json";
  }
  return init;
}

const TX_ROLLBACK = /\btx=rollback\b/;
/** The media type of a plan answer (`explain`). */
const PLAN = /^\s*application\/vnd\.pgrst\.plan\b/i;

/** Whether a write asks PostgREST to roll its transaction back (`Prefer: tx=rollback`). */
function wantsRollback(req: PgRequest): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  for (const k in req.headers) {
    if (k.toLowerCase() === "prefer" && TX_ROLLBACK.test(req.headers[k])) return true;
  }
  return false;
}

/**
 * A write asked to roll back that the server did not confirm: PostgREST
 * applies `tx=rollback` only when its `db-tx-end` allows overrides, and then
 * lists it in `Preference-Applied`. Otherwise the write was committed, unless
 * the server rolls every transaction back (`db-tx-end = rollback`, which an
 * answer cannot show): refused either way, since the caller cannot know. An
 * answer without that header cannot tell either and is refused too, as the
 * write's answer always lists a preference (its `return=`, or a function
 * call's `handling=`): a browser hides the header from a page on another
 * origin (PostgREST does not list it in `Access-Control-Expose-Headers`), and
 * a server that applies none sends none. Only a plan (`explain`), whose
 * answer never carries it, passes.
 */
function checkRolledBack(r: ServiceResult<PgResponse>): ServiceResult<PgResponse> {
  if (!r.ok) return r;
  const applied = r.value.headers.get("preference-applied");
  if (
    applied === null
      // No content type reads as the text "null", which is no plan.
      ? PLAN.test(r.value.headers.get("content-type") as string)
      : TX_ROLLBACK.test(applied)
  ) {
    return r;
  }
  return failure({
    message: applied === null
      ? "Cannot confirm the rollback as the answer shows no Preference-Applied: the write may have been committed (a browser hides that header from a page on another origin, as PostgREST does not list it in Access-Control-Expose-Headers)"
      : "Cannot confirm the rollback as the server did not apply tx=rollback: the write was committed unless its db-tx-end rolls back every transaction (PostgREST applies tx=rollback only when db-tx-end allows overrides)",
    category: "CONFLICT",
    status: r.value.status,
  });
}

/** Sends a PostgREST request through the core transport. */
export function send(client: BaseClient, req: PgRequest): Promise<ServiceResult<PgResponse>> {
  // A transport response already has the PgResponse shape.
  const r = dispatch(client, req, request);
  return wantsRollback(req) ? r.then(checkRolledBack) : r;
}

/** Sends a PostgREST request and resolves only the body text. */
export function sendBody(client: BaseClient, req: PgRequest): Promise<ServiceResult<string>> {
  if (wantsRollback(req)) {
    return send(client, req).then((r) => r.ok ? success(r.value.body) : r);
  }
  return dispatch(client, req, requestBody);
}

function dispatch<T>(
  client: BaseClient,
  req: PgRequest,
  via: (ctx: TransportContext, init: TransportRequest<"text">) => Promise<ServiceResult<T>>,
): Promise<ServiceResult<T>> {
  const init = transportRequest(client, req);
  if (typeof init === "string") {
    return Promise.resolve(failure({ message: init, category: "INVALID_ARGUMENT" }));
  }
  // A HEAD answer has no body, so its failure has no code; PostgREST 13 sends the code in
  // `Proxy-Status`, which the failure does not keep: a HEAD call sees the last answer itself.
  // Another call sees none, and withProxyStatus then returns the result as it is.
  let last: Response | undefined;
  const ctx = req.method === "HEAD"
    ? withFetch(client, async (input, init) => last = await (0, client.fetch)(input, init))
    : client;
  // A call made while a session manager restores into the client waits for its token.
  return afterTokenWait(client, init, (r) => via(ctx, r)).then((r) =>
    refused406(withProxyStatus(r, last))
  );
}

/**
 * PostgREST's 406 is `NOT_FOUND` for a single-row read that matched no row or several (PGRST116,
 * as the document says), but its other 406s refuse the request itself: a schema it does not
 * expose (PGRST106) or a media type it cannot give (PGRST107: a plan while `db-plan-enabled` is
 * off, its default; GeoJSON without PostGIS). Those are `BAD_REQUEST`: as `NOT_FOUND`, a
 * maybe-single read could take them for "no row".
 */
function refused406<T>(r: ServiceResult<T>): ServiceResult<T> {
  // No code reads as the text "null" or "undefined", which names neither.
  return r.ok || r.error.status !== 406 || !/^PGRST10[67]$/.test(r.error.code as string)
    ? r
    : failure({ ...r.error, category: "BAD_REQUEST" });
}
