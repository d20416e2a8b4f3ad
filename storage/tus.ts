/**
 * Resumable uploads: TUS 1.0.0 (core, creation, creation-with-upload,
 * creation-defer-length) over fetch and Web Streams against the storage
 * service's `/upload/resumable` endpoint. A Blob is sent as slices (the
 * runtime streams them); a stream is buffered one chunk at a time, the next
 * chunk read while the current one is in flight, so memory stays about two
 * chunks whatever the size of the data.
 *
 * @module
 */

import type { JsonObjectInput } from "../core/decode.ts";
import { ABORTED, type Bounded, bounded, refusedSignal, untilAborted } from "../core/_abort.ts";
import { describeThrown } from "../core/_thrown.ts";
import { redactCause, redactSecrets } from "../core/http_error.ts";
import { quotedQueryPairs } from "../core/_query_pairs.ts";
import { type BaseClient, globalFetch } from "../core/client.ts";
import { encodeBase64, utf8Decode } from "../core/encoding.ts";
import { encodeComponent } from "../core/_uri.ts";
import { backoffDelay, resolveRetryPolicy, type RetryPolicy } from "../core/retry.ts";
import { sleep } from "../core/_sleep.ts";
import {
  type Failure,
  failure,
  type ServiceError,
  type ServiceResult,
  success,
} from "../core/result.ts";
import { MutableStateFlow, type StateFlow } from "../core/state_flow.ts";
import { readOnly } from "../core/_read_only.ts";
import { checkObjectPath, encodeBucket, encodeObjectPath } from "./_path.ts";
import { chunkBody, runsOnNode, sendsStreamBodies } from "./_chunk_body.ts";
import { checkReadable, type Chunk, ChunkSource, sizeOf } from "./_chunk_source.ts";
import { showValue } from "../core/_show.ts";
import { checkUploadOptions } from "./_upload_options.ts";
import { hasMethods } from "../core/_has_methods.ts";
import { isArrayBuffer, isReadableStream, localBytes, unshared } from "../core/_realm.ts";
import { blobType, isAnyBlob } from "./_blob.ts";
import { isAsyncIterable, iterableStream } from "./_web_stream.ts";
import { requestWatched } from "./_stream_guard.ts";
import { freshReads } from "./_fresh_reads.ts";
import { guard } from "./_guard.ts";
import { requestAfterRestore } from "../core/_token_wait.ts";

/**
 * The default chunk size: 6 MiB. Every chunk but the last is exactly `chunkSize`.
 *
 * @example Counting requests
 * ```ts
 * import { RESUMABLE_DEFAULT_CHUNK_SIZE } from "@fetchbase/fetchbase/storage";
 *
 * const size = 20 * 1024 * 1024;
 * console.log(Math.ceil(size / RESUMABLE_DEFAULT_CHUNK_SIZE)); // 4 chunks
 * ```
 */
export const RESUMABLE_DEFAULT_CHUNK_SIZE: number = 6_291_456; // 6 MiB as a literal: bundles drop it unused

/** Progress of a resumable upload. */
export interface ResumableUploadProgress {
  /** Bytes the server has accepted. */
  readonly bytesUploaded: number;
  /** Total bytes; 0 while unknown (a stream of unknown length). */
  readonly totalBytes: number;
  /** bytesUploaded / totalBytes in 0..1; 0 when totalBytes <= 0. */
  readonly fraction: number;
  /** bytesUploaded >= totalBytes and totalBytes > 0. */
  readonly isComplete: boolean;
}

/**
 * Remembers upload URLs by a fingerprint to resume later. The fingerprint is
 * fixed when an upload first runs: the client's URL, the bucket and path,
 * the size (`stream` while unknown) and a SHA-256 of the data (every byte of
 * bytes and Blobs, read once more for it; a stream's first chunk), so that
 * other bytes for the same path do not resume this upload. A stream whose
 * later bytes differ between runs is not told apart: resume a stream only
 * with the same data.
 */
export interface UploadUrlStore {
  /** The saved URL for a fingerprint, if any. */
  get(fingerprint: string): string | null | undefined | Promise<string | null | undefined>;
  /** Saves the URL of a created upload. */
  set(fingerprint: string, url: string): void | Promise<void>;
  /** Forgets a finished or dead upload. */
  remove(fingerprint: string): void | Promise<void>;
}

/**
 * What a resumable upload reads from. Bytes and a Blob can be re-read; a
 * stream is read once, forward. A byte stream (a file's or a request's
 * body) is read straight into the upload's chunk buffers. Values of another realm are taken
 * (an iframe's, or Node's under a jsdom test environment); a Blob fetch may not take as it is (of
 * another realm or implementation, or without `stream()`, as jsdom's) is read a chunk at a time.
 * An async iterable of bytes (a Node stream, an async generator) is read as a stream. An
 * `ArrayBuffer` (or any other view of bytes) is read as its bytes.
 */
export type ResumableData =
  | Uint8Array
  | ArrayBufferView
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

/** Options of {@linkcode createResumableUpload}. */
export interface ResumableUploadOptions {
  /** Content type. Default a Blob's own `type`, else `application/octet-stream` (as `upload`). */
  contentType?: string | undefined;
  /** Overwrite an existing object. Default false. */
  upsert?: boolean | undefined;
  /** Cache-Control max-age in seconds. */
  cacheControl?: number | null | undefined;
  /**
   * Chunk size in bytes, a positive integer (`RangeError` otherwise).
   * Default 6 MiB. The hosted service wants every chunk but the last to be
   * a multiple of 6 MiB; other TUS servers (and the Storage API's file
   * backend) take any size.
   */
  chunkSize?: number | undefined;
  /** A saved upload URL to resume; null starts a new upload. */
  uploadUrl?: string | null | undefined;
  /**
   * A signed upload token for this bucket and path (what `createSignedUploadUrl` returns, or
   * `createSignedUploadUrlWithPath`'s `token`): the upload goes to the Storage API's
   * `/upload/resumable/sign` with it in `x-signature` on every request to the client's origin, and
   * needs no session (a browser uploading what a server signed). The token decides `upsert`, and
   * how long the upload may go on. Beyond the document and storage-js.
   */
  signedUploadToken?: string | null | undefined;
  /** User metadata (JSON), sent Base64-encoded in `Upload-Metadata`. */
  metadata?: JsonObjectInput | null | undefined;
  /** Total size of a stream, when known (else deferred length). */
  size?: number | null | undefined;
  /** Attempts per request on transient faults. Default 5. */
  maxAttempts?: number | undefined;
  /**
   * Timeout of each upload request in milliseconds (a timed-out PATCH is
   * retried after a HEAD); 0 disables. Default: the client's timeout plus one
   * second per 64 KiB the request sends.
   */
  timeout?: number | undefined;
  /** Backoff base in milliseconds. Default 500. */
  retryBaseDelayMs?: number | undefined;
  /** Backoff cap in milliseconds. Default 10000. */
  retryMaxDelayMs?: number | undefined;
  /** Optional store that remembers upload URLs by fingerprint. */
  urlStore?: UploadUrlStore | null | undefined;
  /**
   * Send the first chunk in the creation request (TUS creation-with-upload):
   * one round trip less, and data that fits in one chunk (a stream of
   * unknown length included) uploads in a single request. A server that
   * ignores the body is handled. `false` creates the upload with an empty
   * POST, then sends every chunk by PATCH. Default true.
   */
  creationWithUpload?: boolean | undefined;
  /**
   * Send each chunk of bytes (from a stream or a `Uint8Array`) as a stream
   * holding that one piece, with its `Content-Length`, instead of as bytes.
   * Node's fetch copies a byte body before sending it, a chunk of garbage per
   * request; a stream goes out as it is. Chromium sends stream bodies only
   * over HTTP/2, WebKit (Safari) none (a `NETWORK` failure); Firefox would
   * send each chunk as the text "[object ReadableStream]", so `true` there
   * throws a `TypeError`. Default: true on Node with Node's own fetch (a
   * client given no `fetch`), false elsewhere: a `fetch` given to the client
   * may not take a stream (node-fetch and cross-fetch send its text). A Blob
   * is always sent as slices.
   */
  streamChunks?: boolean | undefined;
}

/** A resumable upload; no I/O happens until {@linkcode ResumableUpload.await}. */
export interface ResumableUpload {
  /** Null until the upload is created; persist it to resume. */
  readonly uploadUrl: string | null;
  /** Progress after every accepted chunk. */
  readonly progress: StateFlow<ResumableUploadProgress>;
  /**
   * Uploads until every byte is accepted. A caller's signal ends its own
   * wait with `Failure(CANCELLED)`; when every caller waiting has aborted,
   * the upload pauses (the last one gets the run's own result once it has
   * stopped: Success if the last bytes were already accepted), and `await()`
   * or a new handle with the saved `uploadUrl` resumes it (a one-shot stream
   * is cancelled by the pause: only a new handle with a fresh stream resumes).
   * Once a run has succeeded, it answers Success without a request.
   *
   * @param options Cancellation.
   * @returns Success when complete.
   */
  await(options?: { signal?: AbortSignal | undefined }): Promise<ServiceResult<void>>;
}

function progressOf(bytesUploaded: number, totalBytes: number): ResumableUploadProgress {
  // Frozen: the handle compares the next progress with the one it handed out.
  return Object.freeze({
    bytesUploaded,
    totalBytes,
    fraction: totalBytes > 0 ? Math.min(1, bytesUploaded / totalBytes) : 0,
    isComplete: totalBytes > 0 && bytesUploaded >= totalBytes,
  });
}

/** The document's chunk-size Limit: a `RangeError` at once for a size that is no positive integer. */
function checkChunkSize(given: number | undefined): void {
  if (given != null && !(Number.isSafeInteger(given) && given > 0)) {
    throw new RangeError(
      `Cannot upload as 'chunkSize' must be a positive integer: current value is ${
        showValue(given)
      }`,
    );
  }
}

/**
 * The resumable upload's own settings, checked at creation (`RangeError`/`TypeError`): a
 * symbol or a BigInt crashed the backoff's arithmetic mid-upload.
 */
function checkTusSettings(o: ResumableUploadOptions): void {
  const attempts = o.maxAttempts;
  if (attempts !== undefined && !(Number.isSafeInteger(attempts) && attempts > 0)) {
    throw new RangeError(
      `Cannot upload as 'maxAttempts' must be a positive integer: current value is ${
        showValue(attempts)
      }`,
    );
  }
  for (const name of ["retryBaseDelayMs", "retryMaxDelayMs"] as const) {
    const v = o[name];
    if (v !== undefined && !(typeof v === "number" && v >= 0 && v !== Infinity)) {
      throw new RangeError(
        `Cannot upload as '${name}' must be a finite non-negative number: current value is ${
          showValue(v)
        }`,
      );
    }
  }
  for (const name of ["creationWithUpload", "streamChunks"] as const) {
    const v = o[name];
    if (v !== undefined && typeof v !== "boolean") {
      throw new TypeError(
        `Cannot upload as '${name}' must be a boolean: current value is ${showValue(v)}`,
      );
    }
  }
}

/**
 * The values of the query parameters quoted in `text`, as written and decoded: a pre-signed
 * upload URL's credential, as secrets to redact from failures (a server's error may name the
 * token alone, a runtime's the URL, a URL store's the URL it holds).
 */
function queryValues(text: string): string[] {
  return quotedQueryPairs(text).flatMap(([, written, decoded]) => [written, decoded]);
}

/** Whether a saved upload URL is one: an absolute http(s) URL, as `Location` is resolved. */
function isHttpUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * Parses `Upload-Offset` strictly: digits only.
 *
 * @example Parsing
 * ```ts
 * import { parseUploadOffset } from "@fetchbase/fetchbase/storage";
 *
 * console.log(parseUploadOffset("1024")); // 1024
 * console.log(parseUploadOffset("1e3")); // null
 * ```
 *
 * @param value The header's value, or null when absent.
 * @returns The offset, or null when absent or malformed.
 */
export function parseUploadOffset(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return null;
  return +value; // ToNumber ignores the spaces trim() drops
}

/** The header of every TUS request (sent as it is by HEAD, which adds none). */
const TUS: Record<string, string> = { "Tus-Resumable": "1.0.0" };

/** How long an upload waits for its URL store's answer. */
const STORE_WAIT_MS = 10_000;

/** A run of an upload: its promise, the controller that pauses it, the callers still waiting. */
interface RunState {
  promise: Promise<ServiceResult<void>>;
  pause: AbortController;
  waiting: number;
}

/** A chunk read while a request is in flight, for the request after it. */
interface ReadAhead {
  readonly offset: number;
  readonly result: Promise<{ chunk: Chunk | null } | { error: unknown }>;
}

/**
 * Whether a failed request may be retried: network faults, timeouts, 5xx,
 * 423 and 429, and 409 when `conflict` (a PATCH at a stale offset re-syncs).
 */
function isTransient(e: ServiceError, conflict: boolean): boolean {
  if (e.category === "NETWORK" || e.category === "TIMEOUT") return true;
  const s = e.status;
  return s !== null && (s >= 500 || s === 423 || s === 429 || (conflict && s === 409));
}

const cancelled = () => failure({ message: "Upload paused: cancelled", category: "CANCELLED" });

/**
 * `bucket/key` of the upload whose TUS `Upload-Metadata` (a HEAD's) names another bucket or key
 * than this one, else null (no header: a CORS policy may hide it; a value not base64 is not
 * compared).
 */
function otherObject(header: string | null, bucket: string, key: string): string | null {
  if (header === null) return null;
  const named: Record<string, string> = { bucketName: bucket, objectName: key };
  for (const pair of header.split(",")) {
    const [name, value = ""] = pair.trim().split(/\s+/);
    if (!Object.hasOwn(named, name)) continue;
    try {
      named[name] = utf8Decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
    } catch {
      // not compared
    }
  }
  const { bucketName, objectName } = named;
  return bucketName !== bucket || objectName !== key ? `${bucketName}/${objectName}` : null;
}

/**
 * An answer whose `Upload-Offset` is missing or not a byte count. Missing, it is most often a
 * browser hiding it: a server on another origin must list it in `Access-Control-Expose-Headers`.
 */
function offsetFailure(raw: string | null): Failure {
  return failure({
    message: raw === null
      ? "The server's answer has no Upload-Offset (a browser shows it only when the server lists it in Access-Control-Expose-Headers)"
      : `The server sent an invalid Upload-Offset: ${raw}`,
    category: "DECODE",
  });
}

/**
 * A TUS request's result, a redirect answer made the upload's Failure: a 301, 302, 303, 307 or
 * 308 (`redirect: "manual"`), a browser's opaque redirect (status 0), which the transport refuses
 * with this message, or Node's refusal with `redirect: "error"` (a `TypeError` caused by
 * "unexpected redirect"). `UNKNOWN` as any 3xx not followed (`categoryForStatus`), so not retried
 * (a network error would be); the message names neither the Location nor the upload URL (a
 * pre-signed one holds a token in its query).
 */
function notRedirected<T>(r: ServiceResult<T>): ServiceResult<T> {
  if (r.ok) return r;
  const { status, message, cause } = r.error;
  const redirect = status === null
    ? message === "Redirect refused for this request" ||
      ((cause as Error | undefined)?.cause as Error | undefined)?.message === "unexpected redirect"
    : [301, 302, 303, 307, 308].includes(status);
  if (!redirect) return r;
  return failure({
    message: `The server redirected the upload${
      status === null ? "" : ` (${status})`
    }: resumable uploads do not follow redirects`,
    category: "UNKNOWN",
    status,
  });
}

class Upload implements ResumableUpload {
  #client: BaseClient;
  #bucket: string;
  #path: string;
  #source: ChunkSource;
  #o: ResumableUploadOptions;
  #chunkSize: number;
  #streamChunks: boolean;
  /** Whether this runs on Node (its fetch: see {@linkcode Upload.#tus}). */
  readonly #node: boolean;
  #url: string | null;
  /** Total bytes once known: the source's length, or found when a stream ends. */
  #total: number | null;
  /** The `Upload-Length` this handle sent (deferred length), if any. */
  #declared?: number;
  /**
   * Whether the server still waits for the length (a deferred-length upload):
   * the PATCH that reaches it must carry `Upload-Length`.
   */
  #lengthPending = false;
  /** The URL store's key, fixed by the first run (see {@linkcode UploadUrlStore}). */
  #key?: string;
  /** Computing {@linkcode Upload.#key}: one read of the data (a stream's first chunk), shared by every run. */
  #keying?: Promise<void>;
  #ahead?: ReadAhead | null;
  #progress: MutableStateFlow<ResumableUploadProgress>;
  /** What `progress` hands out: no setter (a caller's write reached every subscriber). */
  #progressView: StateFlow<ResumableUploadProgress>;
  /** The run under way, if any. */
  #running?: RunState | null;
  /**
   * Whether the server refused a PATCH of this handle with a 409 that is no offset mismatch (the
   * object exists), until a PATCH is accepted: kept across runs, so retrying cannot turn that
   * refusal into Success.
   */
  #objectTaken = false;
  /** The last URL store call that was given up on while still running. */
  #late?: Promise<unknown>;
  /** Whether a run ended in Success: a later `await()` sends nothing (no second finish step). */
  #done = false;
  /** Attempts and backoff, resolved once from the checked options. */
  readonly #retry: RetryPolicy;
  /** The `metadata` option as JSON text, or null. */
  readonly #metadataJson: string | null;

  constructor(
    client: BaseClient,
    bucket: string,
    path: string,
    data: ResumableData,
    o: ResumableUploadOptions,
    metadataJson: string | null,
  ) {
    this.#client = client;
    this.#bucket = bucket;
    this.#path = path;
    this.#o = o;
    this.#metadataJson = metadataJson;
    this.#retry = resolveRetryPolicy({
      maxAttempts: o.maxAttempts ?? 5,
      baseDelayMs: o.retryBaseDelayMs ?? 500,
      maxDelayMs: o.retryMaxDelayMs ?? 10_000,
    });
    this.#chunkSize = o.chunkSize ?? RESUMABLE_DEFAULT_CHUNK_SIZE;
    this.#node = runsOnNode();
    // Through the client's own `fetch` only Node's: node-fetch and cross-fetch send a stream body
    // as the text "[object ReadableStream]" under the chunk's Content-Length, and the request hung.
    this.#streamChunks = o.streamChunks ?? (this.#node && client.fetch === globalFetch);
    // A stream that has given every declared byte gets the request timeout to end.
    this.#source = new ChunkSource(data, o.size ?? null, o.timeout ?? client.timeout);
    this.#total = this.#source.length;
    this.#url = o.uploadUrl ?? null;
    this.#progress = new MutableStateFlow(progressOf(0, this.#source.length ?? 0));
    this.#progressView = readOnly(this.#progress);
  }

  /**
   * Progress from an offset no answer confirmed as the upload's end (a HEAD's): every byte may be
   * on the server while the upload is not finished (the Storage API creates the object in the
   * finish step, run again by an empty PATCH), so the last byte is not counted until it is, and
   * `isComplete` never goes before `await()` succeeds.
   */
  #setUnconfirmedProgress(offset: number): void {
    const total = this.#total;
    this.#setProgress(
      total !== null && total > 0 && offset >= total ? total - 1 : offset,
      total ?? 0,
    );
  }

  #setProgress(bytesUploaded: number, totalBytes: number): void {
    const now = this.#progress.value;
    if (now.bytesUploaded !== bytesUploaded || now.totalBytes !== totalBytes) {
      this.#progress.value = progressOf(bytesUploaded, totalBytes);
    }
  }

  get uploadUrl(): string | null {
    return this.#url;
  }

  get progress(): StateFlow<ResumableUploadProgress> {
    return this.#progressView;
  }

  await(options?: { signal?: AbortSignal | undefined }): Promise<ServiceResult<void>> {
    options ??= {};
    const signal = options.signal;
    const refused = refusedSignal(signal);
    if (refused) return Promise.resolve(refused);
    if (signal?.aborted) return Promise.resolve(cancelled()); // nothing is started or joined
    let run = this.#running;
    if (!run || run.pause.signal.aborted) {
      // A run being paused is not joined: a new one starts once it has stopped.
      const stopping = run?.promise;
      const pause = new AbortController();
      const started: RunState = { promise: null!, pause, waiting: 0 };
      const go = () => this.#run(pause.signal);
      started.promise = (stopping ? stopping.then(go, go) : go()).finally(() => {
        if (this.#running === started) this.#running = null;
      });
      this.#running = run = started;
    }
    const current = run;
    current.waiting++;
    if (!signal) return current.promise; // a caller who cannot abort keeps the run going
    // Each caller's signal ends its own wait; the run pauses when no caller is left waiting.
    const leave = () => {
      if (--current.waiting === 0) current.pause.abort();
    };
    signal.addEventListener("abort", leave, { once: true });
    return untilAborted(current.promise, signal).then((r) => {
      signal.removeEventListener("abort", leave);
      if (r !== ABORTED) return r;
      // The last caller to leave paused the run: it answers once the run has stopped (an abort
      // after the last byte was accepted changes nothing), so a new await() starts afresh.
      return current.pause.signal.aborted ? current.promise : cancelled();
    });
  }

  /**
   * A call of the URL store, waited for at most {@linkcode STORE_WAIT_MS} or until `signal`
   * aborts. The store only remembers where to resume: callers drop a failed or late `set` or
   * `remove` (the upload goes on), and only a `get` that cannot answer fails the upload.
   */
  #store<T>(
    op: (store: UploadUrlStore) => T | Promise<T>,
    signal?: AbortSignal,
  ): Promise<Exclude<Bounded<T>, { kind: "aborted" }> | typeof ABORTED> {
    const store = this.#o.urlStore;
    if (!store) return Promise.resolve({ kind: "done", value: undefined as T });
    const call = Promise.resolve().then(() => op(store));
    return bounded(call, STORE_WAIT_MS, signal).then((r) => {
      if (r.kind === "done" || r.kind === "failed") return r;
      this.#late = call; // still running: the final remove follows it
      return r.kind === "aborted" ? ABORTED : r;
    });
  }

  /** Forgets the upload in the URL store (a `remove` by {@linkcode Upload.#store}). */
  #forget(signal?: AbortSignal): Promise<unknown> {
    return this.#store((s) => s.remove(this.#key!), signal);
  }

  /**
   * Fixes the URL store's key from the data (every byte of bytes and Blobs, a stream's first
   * chunk, which it keeps). One read, however many runs wait.
   */
  #fixFingerprint(): Promise<void> {
    return this.#keying ??= (async () => {
      const source = this.#source;
      const size = source.length;
      // Bytes and Blobs are read once more; a stream gives its first chunk, which it keeps.
      const digest = await source.fingerprint(this.#chunkSize);
      this.#key = `${this.#client.url}|${this.#bucket}/${this.#path}|${size ?? "stream"}|${digest}`;
    })();
  }

  #sameOrigin(url: string): boolean {
    try {
      return new URL(url).origin === new URL(this.#client.url).origin;
    } catch {
      return false;
    }
  }

  #metadata(): string {
    return Object.entries({
      bucketName: this.#bucket,
      objectName: this.#path,
      // An empty type is none, as `upload` reads it (the server would store the object without
      // one, and skip the bucket's allowed-types check).
      contentType: this.#o.contentType || "application/octet-stream",
      cacheControl: this.#o.cacheControl,
      metadata: this.#metadataJson,
    }).filter(([, v]) => v != null).map(([k, v]) => `${k} ${encodeBase64(String(v))}`).join(",");
  }

  /**
   * The timeout of a request sending `bytes`: the option, else the client's
   * timeout plus one second per 64 KiB (a 6 MiB chunk gets 96 s more, room
   * for links down to about 0.5 Mbit/s); 0 (no timeout) stays 0.
   */
  #timeoutFor(bytes: number): number {
    const base = this.#client.timeout;
    return this.#o.timeout ?? (base > 0 ? base + Math.ceil(bytes / 65.536) : 0);
  }

  /**
   * Waits the backoff for `attempt`, at least the server's `Retry-After` (seconds, capped at 60 s);
   * false when `signal` aborts.
   */
  #backoff(attempt: number, retryAfter: number | null, signal?: AbortSignal): Promise<boolean> {
    return sleep(
      Math.max(backoffDelay(attempt, this.#retry), Math.min((retryAfter ?? 0) * 1000, 60_000)),
      signal,
    );
  }

  /** Starts reading the chunk at `offset` in the background; reads never overlap. */
  #readAhead(offset: number): void {
    const before = this.#ahead;
    if (before?.offset === offset) return;
    const read = () => this.#source.read(offset, this.#chunkSize);
    this.#ahead = {
      offset,
      result: (before ? before.result.then(read) : read()).then(
        (chunk) => ({ chunk }),
        (error: unknown) => ({ error }),
      ),
    };
  }

  /** The chunk at `offset`: the one read ahead when it starts there, else a new read. */
  async #chunkAt(offset: number): Promise<Chunk | null> {
    const ahead = this.#ahead;
    this.#ahead = null;
    if (ahead) {
      const r = await ahead.result; // even a discarded read must finish before the next one
      if (ahead.offset === offset) {
        if ("error" in r) throw r.error;
        return r.chunk;
      }
    }
    return await this.#source.read(offset, this.#chunkSize);
  }

  /** Reads ahead the chunk after `chunk` (at `offset`) unless it is the last one. */
  #readNext(offset: number, chunk: Chunk | null, last: boolean): void {
    const end = offset + sizeOf(chunk);
    if (chunk !== null && !last && (this.#total === null || end < this.#total)) {
      this.#readAhead(end);
    }
  }

  /**
   * Creates the upload, sending the first chunk when `creationWithUpload`,
   * and retries transient faults with backoff (the chunk is re-read from 0).
   * Resolves the offset the server accepted.
   */
  async #create(signal?: AbortSignal): Promise<ServiceResult<number>> {
    const withUpload = this.#o.creationWithUpload ?? true;
    // A Blob that says it is empty must be: a missing file's (Bun) would store an empty object.
    await this.#source.checkEmptyBlob();
    for (let attempt = 1;; attempt++) {
      const first = withUpload ? await untilAborted(this.#firstChunk(), signal) : null;
      if (first === ABORTED) return cancelled();
      const sending = this.#post(first, signal);
      if (withUpload) this.#readNext(0, first, false);
      else if (this.#total !== 0) this.#readAhead(0);
      const r = await sending;
      if (r.ok) {
        return await this.#created(r.value.headers, sizeOf(first), signal);
      }
      if (r.error.category === "NETWORK") await checkReadable(first);
      if (signal?.aborted || !isTransient(r.error, false) || attempt >= this.#retry.maxAttempts) {
        return r;
      }
      if (!(await this.#backoff(attempt, r.error.retryAfter, signal))) return cancelled();
    }
  }

  /**
   * Reads the chunk at byte 0 for creation-with-upload; a stream that ends
   * within it gets a known length.
   */
  async #firstChunk(): Promise<Chunk | null> {
    const chunk = await this.#chunkAt(0);
    const length = sizeOf(chunk);
    if (this.#total === null && (chunk === null || (await this.#source.endsAt(length)))) {
      this.#total = length;
    }
    return chunk;
  }

  #post(
    first: Chunk | null,
    signal?: AbortSignal,
  ): Promise<ServiceResult<{ headers: Headers }>> {
    const headers: Record<string, string> = {
      ...TUS,
      "Upload-Metadata": this.#metadata(),
      "x-upsert": String(this.#o.upsert ?? false),
    };
    if (this.#total !== null) headers["Upload-Length"] = String(this.#total);
    else headers["Upload-Defer-Length"] = "1";
    this.#lengthPending = this.#total === null;
    return this.#tus("POST", null, headers, first, signal);
  }

  /**
   * One TUS request: to the creation endpoint (`url` null, with credentials)
   * or to the upload URL (credentials only on the client's origin). A chunk
   * goes as `application/offset+octet-stream` (none for an empty one).
   */
  async #tus(
    method: "POST" | "HEAD" | "PATCH",
    url: string | null,
    headers: Record<string, string>,
    chunk: Chunk | null,
    signal?: AbortSignal,
  ): Promise<ServiceResult<{ headers: Headers }>> {
    const size = sizeOf(chunk);
    // Chunks sent as streams through a `fetch` given to the client are watched: node-fetch sends
    // one as its text under the chunk's Content-Length, and the request hung.
    // A signed upload's token goes where credentials go: the client's origin only.
    const own = url === null || this.#sameOrigin(url);
    const token = own ? this.#o.signedUploadToken : null;
    // A pre-signed upload URL carries its credential in the query, a signed upload its token:
    // redacted from failures (the query whole and value by value).
    const secrets = url?.includes("?")
      ? [url.slice(url.indexOf("?") + 1), ...queryValues(url)]
      : [];
    if (token) secrets.push(token);
    // Built first: it gives `headers` a streamed chunk's Content-Length, which the signed
    // upload's copy of them must carry too.
    const body = size > 0 || method === "PATCH"
      ? chunkBody(chunk!, this.#streamChunks, headers)
      : undefined;
    const r = await requestWatched(this.#client, {
      method,
      ...(url === null
        ? { area: "storage", path: token ? "/upload/resumable/sign" : "/upload/resumable" }
        : { url, credentials: own ? "token" : "none" }),
      secrets,
      headers: token ? { ...headers, "x-signature": token } : headers,
      body,
      // Read only with a body: a HEAD and an empty POST have none.
      contentType: "application/offset+octet-stream",
      responseType: "none",
      retry: false,
      // A TUS peer never redirects an upload (and an offset from wherever a redirect leads is not
      // the upload's): a redirect ends the upload (`notRedirected`). A refused redirect ("error")
      // is a runtime's own network error, which would be retried, so "manual" hands the 3xx back;
      // but Node keeps a replay copy of every body unless redirects are refused (a chunk's worth
      // of peak memory for a Blob), and names its refusal: Node keeps "error".
      redirect: this.#node ? "error" : "manual",
      // HEAD sends nothing: the option, or the client's timeout.
      timeout: method === "HEAD" ? this.#o.timeout : this.#timeoutFor(size),
      signal,
    });
    return notRedirected(r);
  }

  /** Takes the Location and the accepted offset (absent: 0, the body was ignored) of a 201. */
  async #created(
    headers: Headers,
    sent: number,
    signal?: AbortSignal,
  ): Promise<ServiceResult<number>> {
    const location = headers.get("location");
    if (!location) {
      return failure({
        message: "The server created the upload without a Location",
        category: "DECODE",
      });
    }
    this.#url = new URL(location, `${this.#client.url}/storage/v1/upload/resumable`).href;
    const url = this.#url;
    if ((await this.#store((s) => s.set(this.#key!, url), signal)) === ABORTED) {
      return cancelled();
    }
    const raw = headers.get("upload-offset");
    if (raw === null) return success(0);
    const offset = parseUploadOffset(raw);
    if (offset === null || offset > sent) {
      return failure({
        message:
          `The server sent an invalid Upload-Offset on creation: ${raw} (${sent} bytes sent)`,
        category: "DECODE",
      });
    }
    return success(offset);
  }

  /** HEAD with backoff on transient faults (423, 429 and 5xx honour `Retry-After`). */
  async #headWithRetry(signal?: AbortSignal, resuming = true): Promise<ServiceResult<number>> {
    for (let attempt = 1;; attempt++) {
      const h = await this.#head(signal, resuming);
      if (h.ok || signal?.aborted || !isTransient(h.error, false)) return h;
      if (attempt >= this.#retry.maxAttempts) return h;
      if (!(await this.#backoff(attempt, h.error.retryAfter, signal))) return cancelled();
    }
  }

  /**
   * Reads the server's offset (and length). A length the server holds for a
   * stream of unknown length is adopted on a resume (`resuming`: the stream
   * must then end there) or when this handle declared it; otherwise the
   * server claims a length this upload never sent: `CONFLICT`.
   */
  async #head(signal?: AbortSignal, resuming = false): Promise<ServiceResult<number>> {
    const r = await this.#tus("HEAD", this.#url!, TUS, null, signal);
    if (!r.ok) return r;
    // A saved URL of another object (an `uploadUrl` given to a handle of another bucket or key):
    // a TUS server answers a HEAD with the upload's metadata. Resumed, the rest of these bytes
    // went into that object, and the upload reported Success.
    const other = otherObject(r.value.headers.get("upload-metadata"), this.#bucket, this.#path);
    if (other !== null) {
      return failure({
        message: `Cannot resume as the saved upload is of another object: ${showValue(other)}`,
        category: "CONFLICT",
      });
    }
    // A deferred length the server already knows is not declared twice. Compared first: a saved
    // upload of another length is a CONFLICT, whatever its offset.
    const length = parseUploadOffset(r.value.headers.get("upload-length"));
    if (this.#total !== null && length !== null && length !== this.#total) {
      return failure({
        message:
          `Cannot resume as the saved upload is ${length} bytes long and the data is ${this.#total}`,
        category: "CONFLICT",
      });
    }
    const raw = r.value.headers.get("upload-offset");
    const offset = parseUploadOffset(raw);
    if (offset === null || (this.#total !== null && offset > this.#total)) {
      return offsetFailure(raw);
    }
    // A deferred upload (TUS: `Upload-Defer-Length: 1` while the length is unknown), whose length
    // goes with the PATCH that reaches it. A HEAD that only lacks `Upload-Length` (a proxy or a
    // CORS policy hiding it) is not one: declaring a length the server holds is refused.
    this.#lengthPending = length === null &&
      r.value.headers.get("upload-defer-length")?.trim() === "1";
    if (this.#total === null && length !== null && length >= offset) {
      if (!resuming && length !== this.#declared) {
        return failure({
          message:
            `The server reports an upload length of ${length} bytes that this upload did not declare`,
          category: "CONFLICT",
        });
      }
      this.#total = length;
      this.#source.declare(length);
    }
    return success(offset);
  }

  /**
   * Runs the server's finish step for an upload whose bytes are all there: an empty PATCH at
   * `offset`, retried as a PATCH is. A 409 says the object exists: this upload's own, finished
   * by a request whose answer was lost (Success), unless a PATCH of this handle that completed
   * the upload was itself refused with 409 ({@linkcode Upload.#objectTaken}: another upload wrote
   * the object meanwhile), which stays a CONFLICT, the URL store forgetting the upload.
   */
  async #finish(offset: number, signal?: AbortSignal): Promise<ServiceResult<void>> {
    for (let attempt = 1;; attempt++) {
      const r = await this.#patch(new Uint8Array(0), offset, null, signal);
      if (r.ok) return success(undefined);
      if (signal?.aborted) return cancelled();
      const e = r.error;
      if (e.status === 409) {
        // The URL store forgot the upload when the refusal came (`#send`).
        if (!this.#objectTaken) return success(undefined);
        return failure({
          message:
            "Cannot finish the upload as the object exists: another upload wrote it while this one was sent",
          category: "CONFLICT",
          status: 409,
          code: e.code,
        });
      }
      if (!isTransient(e, true)) return r;
      // The Storage API's S3 backend cannot run its finish step twice: once the multipart upload
      // is complete, a PATCH fails with 500 (an upsert's lost answer; without upsert the 409
      // above comes first). The object carrying this upload's version says it finished.
      const own = await this.#isOwnObject(signal);
      if (own === ABORTED) return cancelled();
      if (own) return success(undefined);
      if (attempt >= this.#retry.maxAttempts) return r;
      if (!(await this.#backoff(attempt, e.retryAfter, signal))) return cancelled();
    }
  }

  /**
   * Whether the object is the one this upload created: the Storage API's upload URL ends in the
   * base64url of `bucket/path/version` (or `bucket/path-$v-version`), and its object info names
   * the version the finish step stored. False for any other URL, answer or failure.
   */
  async #isOwnObject(signal?: AbortSignal): Promise<boolean | typeof ABORTED> {
    let id: string;
    try {
      // Its keys are ASCII (the server refuses others), so the decoded bytes are the text.
      id = atob(
        new URL(this.#url!).pathname.split("/").pop()!.replace(/-/g, "+").replace(/_/g, "/"),
      );
    } catch {
      return false;
    }
    const name = `${this.#bucket}/${this.#path}`;
    const sep = id.startsWith(`${name}/`) ? 1 : id.startsWith(`${name}-$v-`) ? 4 : 0;
    const version = sep ? id.slice(name.length + sep) : "";
    if (version === "" || version.includes("/")) return false;
    // Revalidated: a browser may hold an earlier info answer of this path (see `info`), whose
    // version is another upload's.
    const r = await requestAfterRestore(this.#client, {
      area: "storage",
      path: `/object/info/authenticated/${encodeObjectPath(this.#bucket, this.#path)}`,
      credentials: "token",
      timeout: this.#o.timeout,
      signal,
    }, freshReads(this.#client));
    if (signal?.aborted) return ABORTED;
    return r.ok && (r.value.body as { version?: unknown } | null)?.version === version;
  }

  async #run(signal?: AbortSignal): Promise<ServiceResult<void>> {
    if (this.#done) return success(undefined);
    try {
      // A one-shot stream a paused or failed run cancelled is not read again, nor are the chunks
      // it kept sent: the upload resumes from its URL with a fresh stream on a new handle.
      this.#source.checkLive();
      const r = await this.#loop(signal);
      // A one-shot stream is done with once the run fails: release (and cancel) it.
      if (!r.ok && !this.#source.rereadable) this.#source.cancel();
      return r;
    } catch (e) {
      if (!this.#source.rereadable) this.#source.cancel();
      if (e instanceof RangeError) {
        return failure({ message: e.message, category: "INVALID_ARGUMENT", cause: e });
      }
      // A URL store's error may quote the URL it holds: a query's values are redacted, with the
      // upload's own URL's.
      const text = describeThrown(e);
      const secrets = queryValues(
        `${text} ${e instanceof Error ? e.stack : ""} ${this.#url ?? ""}`,
      );
      return failure({
        message: `Resumable upload failed: ${redactSecrets(text, secrets)}`,
        category: "UNKNOWN",
        cause: redactCause(e, secrets),
      });
    }
  }

  async #loop(signal?: AbortSignal): Promise<ServiceResult<void>> {
    if (this.#o.urlStore) {
      if ((await untilAborted(this.#fixFingerprint(), signal)) === ABORTED) return cancelled();
    }
    if (!this.#url && this.#o.urlStore) {
      const saved = await this.#store((s) => s.get(this.#key!), signal);
      if (saved === ABORTED) return cancelled();
      // A store that cannot answer: the upload's Failure.
      if (saved.kind === "failed") throw saved.error;
      if (saved.kind === "timeout") {
        throw new DOMException(
          `The upload URL store did not answer within ${STORE_WAIT_MS} ms`,
          "TimeoutError",
        );
      }
      // A stored value that is no upload URL (a corrupt store) starts a new upload.
      this.#url = isHttpUrl(saved.value) ? saved.value : null;
    }
    let offset = 0;
    if (this.#url) {
      const h = await this.#headWithRetry(signal);
      if (!h.ok) {
        if (signal?.aborted) return cancelled();
        const status = h.error.status;
        if (status === 404 || status === 410) {
          if ((await this.#forget(signal)) === ABORTED) {
            return cancelled();
          }
          if (!this.#source.canRestart) {
            return failure({
              message:
                "The saved upload no longer exists and a one-shot stream cannot be re-read from the start",
              category: "NOT_FOUND",
              status,
            });
          }
          this.#url = null;
        } else return h;
      } else offset = h.value;
    }
    // An offset a resume read (HEAD) may hold every byte without the server having finished.
    let confirmed = false;
    if (!this.#url) {
      const c = await this.#create(signal);
      if (!c.ok) return signal?.aborted ? cancelled() : c;
      offset = c.value;
      confirmed = true; // the creating POST answered for the bytes it carried
    }
    return await this.#send(offset, confirmed, signal);
  }

  /**
   * PATCHes chunks from `offset` until every byte is accepted, reading one chunk ahead.
   * `confirmed`: the offset comes from a request's own 2xx answer, not from a HEAD.
   */
  async #send(
    offset: number,
    confirmed: boolean,
    signal?: AbortSignal,
  ): Promise<ServiceResult<void>> {
    if (confirmed) this.#setProgress(offset, this.#total ?? 0);
    else this.#setUnconfirmedProgress(offset);
    let attempt = 0;
    let lastOffset = offset; // the highest offset the server has confirmed
    let sentEnd = offset; // the end of the bytes sent so far
    while (true) {
      const total = this.#total;
      // Every byte is in; a deferred length the server still waits for goes in an empty PATCH.
      const declare = total !== null && this.#lengthPending;
      // Checked before the abort: an abort after the last PATCH was accepted changes nothing.
      if (total !== null && offset >= total && !declare) break;
      if (signal?.aborted) return cancelled();
      const read = total !== null && offset >= total
        ? null
        : await untilAborted(this.#chunkAt(offset), signal);
      if (read === ABORTED) return cancelled();
      const chunk = read;
      if (chunk === null && total !== null && offset < total) {
        return failure({
          message:
            `Cannot upload as the stream ended at byte ${offset}: its declared size is ${total}`,
          category: "INVALID_ARGUMENT",
        });
      }
      const body = chunk ?? new Uint8Array(0);
      const end = offset + sizeOf(body);
      // Deferred length: the chunk that ends the data declares the final length.
      let last = total === null ? chunk === null : declare && end >= total;
      if (total === null && chunk !== null) {
        // A stalled source may hold the end-of-stream check: an abort ends the wait.
        const ends = await untilAborted(this.#source.endsAt(end), signal);
        if (ends === ABORTED) return cancelled();
        last = ends;
      }
      sentEnd = Math.max(sentEnd, end);
      const sending = this.#patch(body, offset, last ? end : null, signal);
      this.#readNext(offset, chunk, last); // once the request is on its way
      const r = await sending;
      if (r.ok) {
        this.#objectTaken = false;
        const next = r.value;
        if (next < offset || next > end) {
          return failure({
            message: `The server moved Upload-Offset from ${offset} to ${next}`,
            category: "DECODE",
          });
        }
        if (last) {
          this.#total = end;
          this.#lengthPending = false;
        }
        if (next === offset && end > offset) {
          // A Blob that reads short sends fewer bytes than its size, each retry none at all.
          if (chunk !== null && (await ChunkSource.readsShort(chunk))) {
            return failure({
              message:
                `Cannot upload as 'data' must hold its size of ${this.#total} bytes: the Blob reads short from byte ${offset} (its file shrank)`,
              category: "INVALID_ARGUMENT",
            });
          }
          attempt++;
          if (attempt >= this.#retry.maxAttempts) {
            return failure({
              message: `The server did not advance the upload past byte ${offset}`,
              category: "SERVER",
            });
          }
          if (!(await this.#backoff(attempt, null, signal))) return cancelled();
          continue;
        }
        offset = next;
        confirmed = true;
        if (offset > lastOffset) attempt = 0;
        lastOffset = offset;
        this.#setProgress(offset, this.#total ?? 0);
        continue;
      }
      if (signal?.aborted) return cancelled();
      const e = r.error;
      if (e.category === "NETWORK") await checkReadable(chunk);
      // A 409 saying the object exists (the Storage API's "The resource already exists"; not TUS's
      // offset mismatch, nor a body a proxy emptied, which a HEAD settles as before). The URL
      // store forgets the upload at once, so that no resume, whichever way this run ends, takes
      // the object for this upload's own.
      this.#objectTaken = e.status === 409 && /exist/i.test(e.message) &&
        !/offset/i.test(e.message);
      if (this.#objectTaken && (last || end === total)) {
        // The PATCH that completes the upload may meet the object its own first send created: a
        // runtime replays a request whose reused connection closed without an answer (Deno's
        // fetch does, for a byte body), and the Storage API refuses the copy (no upsert). The
        // object carrying this upload's version says so.
        const own = await this.#isOwnObject(signal);
        if (own === ABORTED) return cancelled();
        if (own) {
          this.#objectTaken = false;
          this.#total = end;
          this.#lengthPending = false;
          offset = end;
          confirmed = true;
          continue;
        }
      }
      if (
        this.#objectTaken &&
        (await this.#forget(signal)) === ABORTED
      ) {
        return cancelled();
      }
      // Only TUS's own offset mismatch is worth another PATCH after a HEAD: the object existing
      // stays so until someone deletes it, and each retry would send a whole chunk for nothing.
      if (this.#objectTaken || !isTransient(e, true)) return r;
      attempt++;
      if (attempt >= this.#retry.maxAttempts) return r;
      if (!(await this.#backoff(attempt, e.retryAfter, signal))) return cancelled();
      // No PATCH goes again before a HEAD has said where the upload stands (and whether a
      // length sent with the failed one arrived: the server refuses a second one).
      const h = await this.#headWithRetry(signal, false);
      if (!h.ok) return signal?.aborted ? cancelled() : h;
      if (h.value < lastOffset) {
        return failure({
          message: `The server moved Upload-Offset back from ${lastOffset} to ${h.value}`,
          category: "DECODE",
        });
      }
      if (h.value > sentEnd) {
        // Bytes this handle did not send: another upload of the same URL is writing it.
        return failure({
          message:
            `Cannot resume as another upload is writing this URL: the server holds ${h.value} bytes and this one sent ${sentEnd}`,
          category: "CONFLICT",
        });
      }
      // Progress seen through the HEAD renews the retry budget, as an accepted PATCH does.
      if (h.value > lastOffset) attempt = 0;
      lastOffset = h.value;
      offset = h.value;
      confirmed = false; // the PATCH that reached here may have failed after writing
      this.#setUnconfirmedProgress(offset);
    }
    if (!this.#source.rereadable) {
      // A stream must end where the upload does (a resume may not have read it yet).
      const ahead = this.#ahead;
      this.#ahead = null;
      if (ahead) await ahead.result;
      // The server holds every declared byte: an abort now only skips this local check.
      await untilAborted(this.#source.verifyEnd(offset), signal);
    }
    if (!confirmed) {
      // Every byte is on the server, but no answer said it finished the upload (the PATCH that
      // reached the end failed, or a resume found it full): the Storage API creates the object
      // in that finish step, which an empty PATCH at the end runs again.
      const done = await this.#finish(offset, signal);
      if (!done.ok) return done;
    }
    // Every byte is in: forgetting the URL is best effort, and an abort now changes nothing.
    await this.#forget(signal);
    // A store call given up on (a slow set) may land after this remove: remove again after it,
    // or the next upload of the same fingerprint would "resume" this finished one.
    const late = this.#late;
    if (late) {
      const again = () => this.#forget();
      late.then(again, again);
    }
    this.#setProgress(offset, this.#total ?? offset);
    this.#done = true;
    return success(undefined);
  }

  async #patch(
    body: Chunk,
    offset: number,
    finalLength: number | null,
    signal?: AbortSignal,
  ): Promise<ServiceResult<number>> {
    // The Storage API reads `x-upsert` on every PATCH too (it checks the object
    // again and completes it on the last one): without it, an upsert that
    // takes more than the POST fails with 409 on an existing object.
    const headers: Record<string, string> = {
      ...TUS,
      "Upload-Offset": String(offset),
      "x-upsert": String(this.#o.upsert ?? false),
    };
    if (finalLength !== null) {
      headers["Upload-Length"] = String(finalLength);
      this.#declared = finalLength;
    }
    const r = await this.#tus("PATCH", this.#url!, headers, body, signal);
    if (!r.ok) return r;
    const raw = r.value.headers.get("upload-offset");
    const next = parseUploadOffset(raw);
    return next === null ? offsetFailure(raw) : success(next);
  }
}

/**
 * Creates a resumable upload handle; no I/O until `await()`. Throws
 * `RangeError` at once for a `chunkSize` that is not a positive integer and
 * `TypeError` for a bad bucket, path or `data`.
 *
 * @example Upload with progress, resumable after a pause
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createResumableUpload } from "@fetchbase/fetchbase/storage";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const up = createResumableUpload(client, "videos", "intro.mp4", new Blob([new Uint8Array(10)]));
 * up.progress.subscribe((p) => console.log(`${Math.round(p.fraction * 100)}%`));
 * const r = await up.await();
 * if (!r.ok) console.log("resume later from", up.uploadUrl);
 * ```
 *
 * @param client The base client (its current token is read per request).
 * @param bucket The bucket id.
 * @param path The object key.
 * @param data Bytes, a Blob, or a stream (unknown length → deferred length).
 * @param options Content type, upsert, cache control, chunk size, saved URL, metadata.
 * @returns The handle.
 */
export function createResumableUpload(
  client: BaseClient,
  bucket: string,
  path: string,
  data: ResumableData,
  options?: ResumableUploadOptions,
): ResumableUpload {
  options ??= {};
  checkChunkSize(options.chunkSize);
  const size = options.size;
  if (size !== undefined && size !== null && (!Number.isSafeInteger(size) || size < 0)) {
    throw new RangeError(
      `Cannot upload as 'size' must be a non-negative integer: current value is ${showValue(size)}`,
    );
  }
  const timeout = options.timeout;
  if (timeout !== undefined && !(typeof timeout === "number" && timeout >= 0)) {
    throw new RangeError(
      `Cannot upload as 'timeout' must be a non-negative number: current value is ${
        showValue(timeout)
      }`,
    );
  }
  // Values of another realm are taken too: bytes as a view of this realm's, a Blob that fetch may
  // not take read one chunk at a time (`ChunkSource`), a stream read through its own reader.
  // Any bytes (an ArrayBuffer, another view) as a Uint8Array; shared memory, which fetch refuses
  // (and another thread could change mid-upload), is copied.
  if (isArrayBuffer(data) || ArrayBuffer.isView(data)) data = unshared(localBytes(data)!);
  if (
    !(data instanceof Uint8Array || isAnyBlob(data) || isReadableStream(data) ||
      isAsyncIterable(data))
  ) {
    throw new TypeError(
      "Cannot upload as 'data' must be bytes, a Blob, or a ReadableStream or async iterable of bytes",
    );
  }
  const metadataJson = checkUploadOptions(options);
  checkTusSettings(options);
  // Firefox would send each chunk as the text "[object ReadableStream]", which the
  // server accepts as 23 bytes of it: the upload crawled on, storing that text over and over.
  if (options.streamChunks === true && !sendsStreamBodies()) {
    throw new TypeError(
      `Cannot upload with 'streamChunks' as this runtime sends a ReadableStream request body as the text "[object ReadableStream]" (Firefox)`,
    );
  }
  // Else every request to it would fail, and be retried, as a network error.
  const resumed = options.uploadUrl;
  if (resumed != null && !isHttpUrl(resumed)) {
    throw new TypeError(
      `Cannot resume as 'uploadUrl' must be an http or https URL: current value is ${
        // Without its query, which may hold a credential.
        showValue(
          typeof resumed === "string" ? (resumed as string).split("?")[0] : resumed,
        )}`,
    );
  }
  const token = options.signedUploadToken;
  if (token != null && (typeof token !== "string" || token.trim() === "")) {
    throw new TypeError(
      `Cannot upload as 'signedUploadToken' must be a non-blank string: current value is ${
        typeof token === "string" ? '""' : showValue(token)
      }`,
    );
  }
  const store = options.urlStore;
  if (store != null) {
    // Else its first call would fail the upload with "get is not a function".
    if (!hasMethods(store, ["get", "set", "remove"])) {
      throw new TypeError("Cannot upload as 'urlStore' must have get, set and remove");
    }
    // Its keys hash the data's first bytes (a browser page served over plain HTTP has no WebCrypto).
    if (typeof globalThis.crypto?.subtle?.digest !== "function") {
      throw new TypeError(
        "Cannot upload with a 'urlStore' as WebCrypto (crypto.subtle) is missing",
      );
    }
  }
  encodeBucket(bucket);
  const checked = checkObjectPath(path);
  if ("error" in checked) throw new TypeError(checked.error);
  // A lone surrogate, which `upload` refuses too (its metadata would name another key).
  encodeComponent(checked.key);
  // As `upload`: a Blob carries its own content type unless one is given.
  const type = blobType(data);
  const o = !options.contentType && type ? { ...options, contentType: type } : options;
  // A Node stream or an async generator of bytes is read as a stream.
  const source = isAsyncIterable(data) ? iterableStream(data) : data;
  return new Upload(client, bucket, checked.key, source, o, metadataJson);
}

/**
 * Runs a resumable upload to completion.
 *
 * @example One call
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createStorageClient, uploadResumable } from "@fetchbase/fetchbase/storage";
 *
 * const storage = createStorageClient(createBaseClient("https://p.example", "anon-key"));
 * const r = await uploadResumable(storage, "videos", "intro.mp4", new Uint8Array(1024), { contentType: "video/mp4" });
 * ```
 *
 * @param storage Anything with `createResumableUpload` (the storage client).
 * @param bucket The bucket id.
 * @param path The object key.
 * @param data Bytes, a Blob, or a stream.
 * @param options Same as {@linkcode createResumableUpload} without `uploadUrl`.
 * @returns Success when every byte is accepted; `Failure(INVALID_ARGUMENT)` for arguments
 *   {@linkcode createResumableUpload} refuses.
 * @throws {RangeError} When `chunkSize` is not a positive integer (the document's Limit).
 */
export function uploadResumable(
  storage: {
    createResumableUpload(
      bucket: string,
      path: string,
      data: ResumableData,
      options?: ResumableUploadOptions,
    ): ResumableUpload;
  },
  bucket: string,
  path: string,
  data: ResumableData,
  options?: Omit<ResumableUploadOptions, "uploadUrl"> & { signal?: AbortSignal | undefined },
): Promise<ServiceResult<void>> {
  options ??= {};
  // As the document says, without `uploadUrl`: one given from JavaScript (or in an options object
  // shared with createResumableUpload) is left out, never resumed (a `urlStore` may still resume
  // what it saved, as createResumableUpload does).
  const { signal, uploadUrl: _resumed, ...rest } = options as ResumableUploadOptions & {
    signal?: AbortSignal | undefined;
  };
  // The chunk size is one of the document's Limits, thrown at once; any other refusal of the
  // arguments resolves a Failure, as `upload` gives it (the handle's constructor throws them).
  checkChunkSize(rest.chunkSize);
  return guard(
    new Promise((resolve) =>
      resolve(storage.createResumableUpload(bucket, path, data, rest).await({ signal }))
    ),
  );
}
