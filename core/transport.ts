/**
 * The one transport every fetchbase request goes through: URL building,
 * credentials, bodies (streamed, never buffered), timeout, cancellation,
 * retries and error mapping. It resolves a {@linkcode ServiceResult} and never
 * rejects: an invalid `timeout` or `maxBodyBytes` is `INVALID_ARGUMENT`.
 *
 * @module
 */

import { errorFromResponse, redactCause, redactSecrets } from "./http_error.ts";
import { checkNonNegative, describeThrown } from "./_thrown.ts";
import { encodeQuery, type QueryInit } from "./query.ts";
import { Failure, failure, type ServiceResult, success } from "./result.ts";
import { backoffDelay, RETRYABLE_STATUSES, type RetryPolicy } from "./retry.ts";
import { utf8Decode } from "./encoding.ts";
import { sleep } from "./_sleep.ts";
import { cancelled, timedOut } from "./_abort.ts";
import { VERSION } from "./version.ts";

/** Which service a request targets; selects the path prefix. */
export type Area = "auth" | "storage" | "rest" | "root";

/**
 * The path prefix of each {@linkcode Area}.
 *
 * @example Building a URL
 * ```ts
 * import { AREA_PREFIX } from "@fetchbase/fetchbase/core";
 *
 * console.log(`https://p.example${AREA_PREFIX.rest}/todos`); // https://p.example/rest/v1/todos
 * ```
 */
export const AREA_PREFIX: Readonly<Record<Area, string>> = /* @__PURE__ */ Object.freeze({
  auth: "/auth/v1",
  storage: "/storage/v1",
  rest: "/rest/v1",
  root: "",
});

/**
 * Which credentials a request carries:
 * - `"token"` (default): `apikey` plus `Authorization: Bearer` with the
 *   per-call token, else a client-wide `Authorization` header, else the
 *   client's current access token, else the API key;
 * - `"apikey"`: `apikey` plus `Authorization: Bearer <API key>` (a
 *   client-wide `Authorization` header replaces it);
 * - `"none"`: neither header (public endpoints, foreign origins).
 */
export type CredentialMode = "token" | "apikey" | "none";

/** A request body the transport can send. Streams are sent as they come. */
export type RequestBody =
  | string
  | Uint8Array
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>;

/** How the transport reads a successful response body. */
export interface ResponseBodies {
  /** Parsed JSON; `null` for an empty body. */
  json: unknown;
  /** UTF-8 text. */
  text: string;
  /** Raw bytes. */
  bytes: Uint8Array<ArrayBuffer>;
  /** The unread body stream (null when the response has none). */
  stream: ReadableStream<Uint8Array> | null;
  /** Nothing: the body is discarded. */
  none: null;
}

/** One of the keys of {@linkcode ResponseBodies}. */
export type ResponseType = keyof ResponseBodies;

/**
 * A fetch redirect mode (`RequestRedirect`, spelled out so that the public
 * types need no DOM library).
 */
export type RedirectMode = "error" | "follow" | "manual";

/** A request for the transport. */
export interface TransportRequest<R extends ResponseType = "json"> {
  /** HTTP method. Default `GET`. */
  method?: string | undefined;
  /** The service; ignored when `url` is given. */
  area?: Area | undefined;
  /** Route under the area prefix, starting with `/`, already encoded. */
  path?: string | undefined;
  /**
   * An absolute URL that replaces base URL, area and path. With a `query` it carries no fragment
   * (`#...`): the query is appended to its end.
   */
  url?: string | undefined;
  /** Query parameters appended after any query already in `path`/`url`. */
  query?: QueryInit | undefined;
  /** Extra headers, merged over the computed ones. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** A value sent as JSON (`Content-Type: application/json`). */
  json?: unknown;
  /** A raw body, sent verbatim; a stream is streamed, and cancelled if the call fails. */
  body?: RequestBody | undefined;
  /** The body's content type when `body` is given. */
  contentType?: string | undefined;
  /** Which credentials to send. Default `"token"`. */
  credentials?: CredentialMode | undefined;
  /**
   * A per-call access token that wins over the client's current one and over
   * a client-wide `Authorization` header.
   */
  accessToken?: string | null | undefined;
  /** Cancels the request. */
  signal?: AbortSignal | undefined;
  /** Milliseconds for the whole call, body reading included; 0 disables. */
  timeout?: number | undefined;
  /**
   * Whether failed attempts may be retried. Default: true for GET and HEAD.
   * A request whose body is a stream is never retried.
   */
  retry?: boolean | undefined;
  /** How to read a successful body. Default `"json"`. */
  responseType?: R | undefined;
  /** Largest successful body accepted, in bytes (not for streams). */
  maxBodyBytes?: number | undefined;
  /**
   * Redirect handling. By default the transport follows up to 5 redirects
   * itself: within the origin as fetch would; to another origin only for
   * GET and HEAD, and without the API key, the bearer or the client-wide
   * headers. A mode given here is passed to fetch as it is.
   */
  redirect?: RedirectMode | undefined;
  /**
   * More values to redact from failures, as the credentials are: secrets the
   * request carries in its body (a refresh token, a password) that an error
   * may echo.
   */
  secrets?: readonly string[] | undefined;
}

/** A successful HTTP answer. */
export interface TransportResponse<T> {
  /** HTTP status (2xx). */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The body, read as requested. */
  body: T;
}

/** What the transport needs from a client. */
export interface TransportContext {
  /** Base URL without trailing slash. */
  readonly url: string;
  /** The project API key. */
  readonly apiKey: string;
  /** The current access token, read at every attempt. */
  readonly accessToken: string | null;
  /** The fetch implementation. */
  readonly fetch: typeof fetch;
  /** Client-wide extra headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** Default timeout in milliseconds; 0 disables. */
  readonly timeout: number;
  /** The retry policy. */
  readonly retry: RetryPolicy;
}

/**
 * Largest error body read for a message, in bytes (1 MiB). A PostgREST error's `details` quote
 * the failing row whole ("Failing row contains (...)"), and a JSON body cut short cannot be read:
 * its `code` and `message` would be lost with it.
 *
 * @example Reading the limit
 * ```ts
 * import { MAX_ERROR_BODY_BYTES } from "@fetchbase/fetchbase/core";
 *
 * console.log(MAX_ERROR_BODY_BYTES); // 1048576
 * ```
 */
export const MAX_ERROR_BODY_BYTES = 1_048_576; // a literal: a bundler keeps an unused product

/**
 * Reads at most `cap` bytes of a body. A fetch whose body is no web stream (node-fetch and
 * cross-fetch give a Node stream) is read whole through the Response, then cut.
 */
async function readCapped(
  response: Response,
  cap: number,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; truncated: boolean }> {
  const stream = response.body;
  if (!stream?.getReader) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { bytes: bytes.slice(0, cap), truncated: bytes.length > cap };
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > cap) {
        chunks.push(value.subarray(0, cap - size));
        size = cap;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    if (truncated) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes: out, truncated };
}

function buildUrl(ctx: TransportContext, req: TransportRequest<ResponseType>) {
  const base = req.url ?? ctx.url + AREA_PREFIX[req.area ?? "root"] + (req.path ?? "");
  const query = encodeQuery(req.query);
  if (query === "") return base;
  return base + (base.includes("?") ? "&" : "?") + query;
}

/**
 * Computes the request headers: `X-Client-Info`, content type, credentials,
 * then client-wide headers, then per-call headers (later ones win), except
 * that a per-call `accessToken` stays over a client-wide `Authorization`.
 *
 * @example Inspecting headers
 * ```ts
 * import { buildHeaders, DEFAULT_RETRY_POLICY } from "@fetchbase/fetchbase/core";
 *
 * const h = buildHeaders({
 *   url: "https://x.example", apiKey: "anon-key", accessToken: null, fetch,
 *   headers: {}, timeout: 0, retry: DEFAULT_RETRY_POLICY,
 * }, {});
 * console.log(h.get("authorization")); // Bearer anon-key
 * ```
 *
 * @param ctx The client.
 * @param req The request.
 * @returns The headers.
 */
export function buildHeaders(
  ctx: TransportContext,
  req: TransportRequest<ResponseType>,
): Headers {
  return new Headers(headerRecord(ctx, req));
}

/** The same headers as a plain record with lower-case names (cheaper than `Headers`). */
function headerRecord(
  ctx: TransportContext,
  req: TransportRequest<ResponseType>,
): Record<string, string> {
  const headers: Record<string, string> = { "x-client-info": `fetchbase/${VERSION}` };
  if (req.json !== undefined) {
    headers["content-type"] = "application/json";
  } else if (req.body !== undefined) {
    headers["content-type"] = req.contentType ??
      (typeof req.body === "string"
        ? "text/plain;charset=UTF-8"
        // A Blob's own type (of any realm; the other bodies have none), as fetch would send it.
        : (req.body as Blob).type || "application/octet-stream");
  }
  const mode = req.credentials ?? "token";
  // Client-wide headers may carry credentials: a request sent without credentials gets none.
  if (mode !== "none") {
    headers.apikey = ctx.apiKey;
    headers.authorization = `Bearer ${
      mode === "apikey" ? ctx.apiKey : ctx.accessToken ?? ctx.apiKey
    }`;
    mergeHeaders(headers, ctx.headers);
    // A token given for this call names the user it acts for: a client-wide Authorization
    // header (say, the caller's own token in an edge function) does not replace it.
    const explicit = mode !== "apikey" && req.accessToken?.trim();
    if (explicit) headers.authorization = `Bearer ${explicit}`;
  }
  mergeHeaders(headers, req.headers);
  return headers;
}

/** Copies headers under lower-case names, over those already there. */
function mergeHeaders(
  into: Record<string, string>,
  from: Readonly<Record<string, string>> | undefined,
): void {
  for (const k in from) into[k.toLowerCase()] = from[k];
}

/**
 * Whether a header carries a credential: `apikey`, any `*authorization`,
 * `cookie`, and any name holding "key", "token" or "secret". Their values
 * are redacted from messages and never follow a redirect to another origin.
 */
function isCredentialHeader(name: string): boolean {
  return name === "cookie" || /authorization|key|token|secret/.test(name);
}

function secretsOf(ctx: TransportContext, req: TransportRequest<ResponseType>) {
  const out = [ctx.apiKey, ctx.accessToken, req.accessToken, ...req.secrets ?? []];
  // Credentials passed as headers (per call or client-wide) are secrets too.
  for (const headers of [ctx.headers, req.headers]) {
    for (const k in headers) {
      if (isCredentialHeader(k.toLowerCase())) {
        out.push(headers[k], headers[k].replace(/^[A-Za-z]+\s+/, ""));
      }
    }
  }
  return out;
}

/** The longest delay `setTimeout` honours (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Microtask turns an attempt may take before the timeout timer is armed. */
const SETTLE_TURNS = 24;
// Promise turns, not queueMicrotask: Node wraps each queueMicrotask callback in an AsyncResource.
const RESOLVED: Promise<void> = /* @__PURE__ */ Promise.resolve();

type Outcome = ServiceResult<unknown>;

/**
 * One call: its attempts, retries, timeout and cancellation, settling one
 * promise exactly once. An abort settles it at once, so even a fetch that
 * ignores its signal cannot outlive the timeout. The controller is aborted
 * only as the call settles (a failed call aborts it to cut a stream body),
 * so an attempt or a retry wait it ends finds the call settled, and its
 * outcome is dropped.
 */
class Call {
  // The controller's signal is created only when a fetch reads it (a getter
  // on the init): Node spends microseconds building each AbortSignal.
  readonly controller: AbortController = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Settled: an attempt still under way (a fetch that ignored its signal) goes no further. */
  done = false;
  #turns = 0;
  #attempt = 1;
  #resolve!: (r: Outcome) => void;
  readonly #ctx: TransportContext;
  readonly #req: TransportRequest<ResponseType>;
  readonly #method: string;
  readonly #timeout: number;
  readonly #deadline: number;
  readonly #maxAttempts: number;
  readonly #bodyOnly: boolean;
  readonly #url: string;

  constructor(
    ctx: TransportContext,
    req: TransportRequest<ResponseType>,
    url: string,
    method: string,
    timeout: number,
    maxAttempts: number,
    bodyOnly: boolean,
  ) {
    this.#bodyOnly = bodyOnly;
    this.#url = url;
    this.#ctx = ctx;
    this.#req = req;
    this.#method = method;
    this.#timeout = timeout;
    this.#maxAttempts = maxAttempts;
    // A timeout past setTimeout's limit (about 24.8 days) is as good as none.
    this.#deadline = timeout > 0 && timeout <= MAX_TIMER_MS ? Date.now() + timeout : 0;
  }

  run(): Promise<Outcome> {
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.#req.signal?.addEventListener("abort", this.#onUserAbort, { once: true });
      this.#send();
      // The timeout timer is armed lazily: an attempt that settles within a
      // few microtask turns (an in-process or cached fetch) never pays for a
      // timer; any real I/O arms it with the time left before the deadline.
      if (this.#deadline !== 0) RESOLVED.then(this.#watch);
    });
  }

  #send(): void {
    attemptOnce(this.#ctx, this.#req, this.#url, this.#method, this).then(
      this.#onResult,
      // An attempt resolves every fault it meets; a throw (a mistyped header
      // value from untyped code) still settles the call. Its cause holds no secret.
      (error: unknown) =>
        this.#finish(
          failure({
            message: "Cannot send the request as it is malformed",
            category: "INVALID_ARGUMENT",
            cause: error,
          }),
        ),
    );
  }

  #watch = (): void => {
    // Armed or settled: #arm does nothing.
    if (this.#timer !== undefined || this.done || ++this.#turns >= SETTLE_TURNS) this.#arm();
    else RESOLVED.then(this.#watch);
  };

  #arm(): void {
    if (this.#deadline === 0 || this.#timer !== undefined || this.done) return;
    this.#timer = setTimeout(
      () => this.#abort(new DOMException("Timed out", "TimeoutError"), true),
      Math.max(0, this.#deadline - Date.now()),
    );
  }

  #onUserAbort = (): void => this.#abort(this.#req.signal?.reason);

  /** Aborts the call as cancelled, or as timed out. */
  #abort(reason: unknown, timeout?: boolean): void {
    this.controller.abort(reason);
    this.#finish(timeout ? timedOut(this.#timeout, reason) : cancelled(reason));
  }

  #finish(outcome: Outcome): void {
    if (this.done) return;
    this.done = true;
    // A failed call cuts its stream body's pipe (attemptOnce), cancelling the caller's stream.
    if (!outcome.ok) this.controller.abort();
    clearTimeout(this.#timer); // a no-op for undefined
    this.#req.signal?.removeEventListener("abort", this.#onUserAbort);
    this.#resolve(outcome);
  }

  #onResult = (result: AttemptResult): void => {
    if (this.done) return;
    if (Array.isArray(result)) return this.#finish(result[0]);
    if (!(result instanceof Failure)) {
      return this.#finish(success(this.#bodyOnly ? result.body : result));
    }
    const out = result;
    const transient = out.error.category === "NETWORK" ||
      RETRYABLE_STATUSES.has(out.error.status!); // no status (null) is none of them
    if (!transient || this.#attempt >= this.#maxAttempts) return this.#finish(out);
    let delay = backoffDelay(this.#attempt, this.#ctx.retry);
    // The answer's Retry-After, in whole seconds (a date's measured by the server's clock and
    // rounded up: `errorFromResponse`).
    const after = out.error.retryAfter;
    if (after !== null) {
      if (after * 1000 > this.#ctx.retry.maxRetryAfterMs) return this.#finish(out);
      delay = Math.max(delay, after * 1000);
    }
    // A wait that ends past the deadline would only turn this answer into a timeout.
    if (delay > MAX_TIMER_MS || (this.#deadline !== 0 && Date.now() + delay >= this.#deadline)) {
      return this.#finish(out);
    }
    this.#arm();
    // Only a settling call aborts the controller, ending the wait early: nothing is left to do.
    sleep(delay, this.controller.signal).then(() => {
      if (this.done) return;
      this.#attempt++;
      this.#send();
    });
  };
}

/**
 * Sends one request and reads its answer as `req.responseType` asks.
 * Resolves a {@linkcode Failure} for every HTTP error, transport fault,
 * timeout, cancellation or undecodable body; never rejects.
 *
 * @example Calling the transport
 * ```ts
 * import { createBaseClient, request } from "@fetchbase/fetchbase/core";
 *
 * const client = createBaseClient("https://project.example", "anon-key");
 * const health = await request(client, { area: "auth", path: "/health" });
 * if (health.ok) console.log(health.value.body);
 * ```
 *
 * @param ctx The client.
 * @param req The request.
 * @returns The answer or a failure.
 */
export function request<R extends ResponseType = "json">(
  ctx: TransportContext,
  req: TransportRequest<R>,
): Promise<ServiceResult<TransportResponse<ResponseBodies[R]>>> {
  return start(ctx, req, false) as Promise<ServiceResult<TransportResponse<ResponseBodies[R]>>>;
}

/**
 * Like {@linkcode request}, resolving only the body (one allocation and one
 * promise turn fewer: what the database primitives use).
 *
 * @example Reading a body
 * ```ts
 * import { createBaseClient, requestBody } from "@fetchbase/fetchbase/core";
 *
 * const client = createBaseClient("https://project.example", "anon-key");
 * const rows = await requestBody(client, { area: "rest", path: "/todos", responseType: "text" });
 * if (rows.ok) console.log(rows.value);
 * ```
 *
 * @param ctx The client.
 * @param req The request.
 * @returns The body or a failure.
 */
export function requestBody<R extends ResponseType = "json">(
  ctx: TransportContext,
  req: TransportRequest<R>,
): Promise<ServiceResult<ResponseBodies[R]>> {
  return start(ctx, req, true) as Promise<ServiceResult<ResponseBodies[R]>>;
}

function start(
  ctx: TransportContext,
  req: TransportRequest<ResponseType>,
  bodyOnly: boolean,
): Promise<ServiceResult<unknown>> {
  const method = (req.method ?? "GET").toUpperCase();
  // Where there is no `ReadableStream` (React Native), no body is one: calls go on as with any other.
  const isStreamBody = typeof ReadableStream == "function" && req.body instanceof ReadableStream;
  const retryAllowed = !isStreamBody &&
    (req.retry ?? (method === "GET" || method === "HEAD"));
  const timeout = req.timeout ?? ctx.timeout;
  const cap = req.maxBodyBytes;
  const signal = req.signal;
  if (signal?.aborted) {
    // As fetch does, an already aborted call cancels its stream body.
    if (isStreamBody) (req.body as ReadableStream).cancel(signal.reason).catch(() => {});
    return Promise.resolve(cancelled(signal.reason));
  }
  let url: string | undefined;
  try {
    // An invalid setting is the caller's input, resolved as INVALID_ARGUMENT like the rest.
    checkNonNegative("send the request", "timeout", timeout);
    if (cap !== undefined) checkNonNegative("send the request", "maxBodyBytes", cap, true);
    if (signal != null && typeof signal.addEventListener !== "function") {
      throw new TypeError("Cannot send the request as 'signal' is not an AbortSignal");
    }
    url = buildUrl(ctx, req);
    // JSON is serialised once for every attempt.
    if (req.json !== undefined) {
      const body: string | undefined = JSON.stringify(req.json); // undefined for a function
      req = { ...req, json: undefined, body, contentType: "application/json" };
    }
  } catch (error) {
    // A query value that cannot be encoded (a lone surrogate) or a value JSON
    // cannot hold (a BigInt, a cycle) is the caller's input.
    const message = describeThrown(error);
    return Promise.resolve(failure({
      message: url === undefined
        ? message
        : `Cannot send the request as its JSON body cannot be serialised: ${message}`,
      category: "INVALID_ARGUMENT",
      cause: error,
    }));
  }
  const max = retryAllowed ? ctx.retry.maxAttempts : 1;
  return new Call(ctx, req, url, method, timeout, max, bodyOnly).run();
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** A transport fault as a retryable `NETWORK` failure, secrets redacted from message and cause. */
function networkFailure(
  what: string,
  error: unknown,
  secrets: ReadonlyArray<string | null | undefined>,
): Failure {
  const detail = describeThrown(error);
  return failure({
    message: redactSecrets(`${what}: ${detail}`, secrets),
    category: "NETWORK",
    cause: redactCause(error, secrets),
  });
}

/** A failure that repeats whatever the attempt (refused redirect, bad header), in a list: no retry. */
function refused(
  message: string,
  category: "NETWORK" | "INVALID_ARGUMENT" = "NETWORK",
): [Failure] {
  return [failure({ message, category })];
}

/**
 * The next hop of a redirect, or why it is refused. 303, and 301/302 after a
 * POST, become a bodiless GET (as fetch does). Another origin gets only GET
 * and HEAD, and none of the API key, the bearer or the client-wide headers.
 */
function redirectInit(
  init: LazySignalInit,
  status: number,
  from: string,
  location: string,
  ctx: TransportContext,
  hops: number,
): [string, LazySignalInit] | string {
  if (hops >= MAX_REDIRECTS) return `Redirect refused: more than ${MAX_REDIRECTS} redirects`;
  let to: URL | undefined;
  try {
    to = new URL(location, from);
  } catch {
    // Not a URL at all: refused as any other Location that is not http(s).
  }
  if (!to || (to.protocol !== "https:" && to.protocol !== "http:")) {
    return "Redirect refused: the Location is not an http(s) URL";
  }
  let method = init.method;
  let body = init.body;
  const next = { ...init.headers };
  if (method !== "HEAD" && (status === 303 || (method === "POST" && status < 303))) {
    method = "GET";
    body = undefined;
    // The headers that describe the body go with it: the fetch standard's four request-body
    // headers (type, encoding, language, location) and any other `content-*` one.
    for (const h in next) if (h.startsWith("content-")) delete next[h];
  }
  // Only a stream body is sent half-duplex (`attemptOnce`).
  if (body !== undefined && init.duplex) {
    return "Redirect refused: a streamed body cannot be sent again";
  }
  if (to.origin !== new URL(from).origin) {
    if (method !== "GET" && method !== "HEAD") {
      return `Redirect refused: a ${method} is not sent to another origin`;
    }
    // No credential (client-wide or per call) and no client-wide header leaves the origin.
    for (const k in next) if (isCredentialHeader(k)) delete next[k];
    for (const k in ctx.headers) delete next[k.toLowerCase()];
  }
  const out = new LazySignalInit(method, next, "manual", init.controller);
  out.caller = init.caller;
  if (body !== undefined) out.body = body;
  if (init.duplex) out.duplex = init.duplex;
  return [to.href, out];
}

/**
 * The `signal` of a {@linkcode LazySignalInit}: an own enumerable getter, so
 * that a custom fetch copying the init (`{ ...init, headers }`) still gets
 * it, while the signal comes into being only when it is read. One shared
 * descriptor keeps every init's shape the same.
 */
const LAZY_SIGNAL: PropertyDescriptor = {
  get(this: LazySignalInit): AbortSignal {
    const own = this.controller.signal;
    return this.caller ? AbortSignal.any([own, this.caller]) : own;
  },
  enumerable: true,
};

/** A fetch init whose `signal` comes into being only when the fetch reads it. */
class LazySignalInit {
  // Declared only (no field emitted): each is set where it applies, which is all a fetch reads.
  declare body?: BodyInit;
  declare duplex?: "half";
  /** For a streamed answer: the caller's signal, joined to the fetch's own. */
  declare caller?: AbortSignal | undefined;
  declare readonly signal: AbortSignal;
  // Set by the constructor, in this order, before the signal.
  declare readonly method: string;
  declare readonly headers: Record<string, string>;
  declare readonly redirect: RedirectMode;
  declare readonly controller: AbortController;
  constructor(
    method: string,
    headers: Record<string, string>,
    redirect: RedirectMode,
    controller: AbortController,
  ) {
    this.method = method;
    this.headers = headers;
    this.redirect = redirect;
    this.controller = controller;
    Object.defineProperty(this, "signal", LAZY_SIGNAL);
  }
}

/** An answer, a failure that may be retried, or one that may not (`refused`). */
type AttemptResult = TransportResponse<unknown> | Failure | [Failure];

async function attemptOnce(
  ctx: TransportContext,
  req: TransportRequest<ResponseType>,
  url: string,
  method: string,
  call: Call,
): Promise<AttemptResult> {
  const controller = call.controller;
  const secrets = secretsOf(ctx, req);
  let response: Response;
  const headers = headerRecord(ctx, req);
  let init = new LazySignalInit(method, headers, req.redirect ?? "manual", controller);
  // A streamed body outlives the call: the caller's signal must reach it without a listener,
  // where signals can be joined (`AbortSignal.any`: every current runtime; not Node before 20.3).
  if (req.responseType === "stream" && req.signal && typeof AbortSignal.any === "function") {
    init.caller = req.signal;
  }
  // Ends the pipe of a stream body (see below) with its source.
  let cutBody: (() => void) | undefined;
  if (req.body !== undefined) {
    init.body = req.body as BodyInit;
    // A stream goes through a pipe the call cuts when it fails (see Call): fetch heeds no abort
    // once its answer has come, and would send the rest of a body the server refused early.
    // Fetch refuses a locked or used stream, which a pipe would send as an empty body. workerd
    // before 2022-11-30 ignores the transformer (no `start`) and cannot pipe a TransformStream's
    // readable into another: there the stream goes as it is, uncut. The pipe reads the checking
    // Response's body, the caller's stream itself except in Bun before 1.4.3: there a Response
    // locks a Blob's stream (`blob.stream()`) and gives its own.
    if (typeof ReadableStream == "function" && req.body instanceof ReadableStream) {
      init.duplex = "half";
      try {
        const body = new Response(req.body).body!;
        const pipe = new TransformStream({ start: (c) => void (cutBody = () => c.error()) });
        if (cutBody) init.body = body.pipeThrough(pipe, { signal: controller.signal });
      } catch (error) {
        return networkFailure("Network error", error, secrets);
      }
    }
  }
  let target = url;
  for (let hops = 0;; hops++) {
    try {
      // Called unbound: a runtime's own fetch given as the client's (`{ fetch }`) refuses any
      // other `this` (workerd and browsers throw "Illegal invocation").
      response = await (0, ctx.fetch)(target, init as RequestInit);
    } catch (error) {
      // A header fetch cannot send is the caller's; anything else, the network's.
      try {
        new Headers(init.headers);
      } catch {
        return refused("Cannot send the request as a header value is invalid", "INVALID_ARGUMENT");
      }
      return networkFailure("Network error", error, secrets);
    }
    if (!(response?.status >= 0 && typeof response.headers?.get === "function")) {
      return refused("fetch resolved no Response");
    }
    // Answered after the call settled (cancelled or timed out; a fetch that ignored its signal):
    // no redirect is followed (a cancelled POST went out again on each), and the body is
    // cancelled, not read. The throw ends the attempt; the settled call ignores its outcome.
    if (call.done) throw response.body?.cancel?.().catch(() => {});
    if (req.redirect !== undefined || !REDIRECTS.has(response.status)) break;
    const location = response.headers.get("location");
    if (location === null) break;
    await response.body?.cancel?.().catch(() => {});
    const next = redirectInit(init, response.status, target, location, ctx, hops);
    if (typeof next === "string") return refused(next);
    // A redirect followed without the body (303; 301, 302 after a POST): fetch would go on
    // sending the rest of a stream to the first URL.
    if (next[1].body === undefined) cutBody?.();
    [target, init] = next;
  }

  if (response.status === 0 || response.type === "opaqueredirect") {
    return refused("Redirect refused for this request");
  }

  try {
    if (!response.ok) {
      // A body cut off still leaves the status its word (a 401 read as NETWORK was retried).
      const { bytes, truncated } = await readCapped(response, MAX_ERROR_BODY_BYTES).catch(() => ({
        bytes: new Uint8Array(),
        truncated: true,
      }));
      const error = errorFromResponse({
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        body: utf8Decode(bytes),
        truncated,
      }, secrets);
      return failure(error);
    }
    const type = req.responseType ?? "json";
    let body: unknown;
    if (type === "stream") {
      body = response.body;
      // The body stays tied to the caller's signal: through the fetch's own signal where the
      // runtime can join signals (init.caller), else through a pipe the signal cuts (cancelling
      // the fetch's body), which lets go of the signal once the body has ended (read, cancelled
      // or failed): a listener kept per download would pile up on a long-lived signal. A signal
      // the pipe refuses (not an AbortSignal) fails the call, as AbortSignal.any would.
      if (body && req.signal && !init.caller) {
        body = (body as ReadableStream).pipeThrough(new TransformStream(), { signal: req.signal });
      }
    } else if (type === "none" || method === "HEAD") {
      await response.body?.cancel?.().catch(() => {});
      // `json` and `none` read null (a stream was handled above).
      body = type === "text" ? "" : type === "bytes" ? new Uint8Array() : null;
    } else {
      let bytes: Uint8Array<ArrayBuffer> | undefined;
      if (req.maxBodyBytes !== undefined) {
        const capped = await readCapped(response, req.maxBodyBytes);
        if (capped.truncated) {
          return failure({
            message: `Response body exceeds ${req.maxBodyBytes} bytes`,
            category: "DECODE",
            status: response.status,
          });
        }
        bytes = capped.bytes;
      }
      if (type === "bytes") body = bytes ?? new Uint8Array(await response.arrayBuffer());
      else {
        const text = bytes ? utf8Decode(bytes) : await response.text();
        if (type === "text") body = text;
        else {
          try {
            body = text.trim() === "" ? null : JSON.parse(text);
          } catch {
            return failure({
              message: `Response is not valid JSON: ${
                redactSecrets(text.slice(0, 4096), secrets).slice(0, 80).replace(/\s+/g, " ")
              }`,
              category: "DECODE",
              status: response.status,
              // No cause: V8's SyntaxError quotes the text's first characters, which may be
              // the start of a secret the redaction above cannot know as cut.
            });
          }
        }
      }
    }
    return { status: response.status, headers: response.headers, body };
  } catch (error) {
    return networkFailure("Network error while reading the body", error, secrets);
  }
}
