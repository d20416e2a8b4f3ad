/**
 * Resumable uploads: TUS 1.0.0 (core, creation, creation-defer-length) over
 * fetch and Web Streams against the storage service's `/upload/resumable`
 * endpoint. Memory stays O(chunkSize) whatever the size of the data.
 *
 * @module
 */

import type { BaseClient } from "../core/client.ts";
import { encodeBase64 } from "../core/encoding.ts";
import { backoffDelay, parseRetryAfter, resolveRetryPolicy } from "../core/retry.ts";
import { failure, type ServiceResult, success } from "../core/result.ts";
import { MutableStateFlow, type StateFlow } from "../core/state_flow.ts";
import { checkObjectPath, encodeBucket } from "./_path.ts";

/** The default chunk size: 6 MiB. Every chunk but the last is exactly `chunkSize`. */
export const RESUMABLE_DEFAULT_CHUNK_SIZE: number = 6 * 1024 * 1024;

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

/** Remembers upload URLs by a fingerprint (bucket, path, size) to resume later. */
export interface UploadUrlStore {
  /** The saved URL for a fingerprint, if any. */
  get(fingerprint: string): string | null | undefined | Promise<string | null | undefined>;
  /** Saves the URL of a created upload. */
  set(fingerprint: string, url: string): void | Promise<void>;
  /** Forgets a finished or dead upload. */
  remove(fingerprint: string): void | Promise<void>;
}

/** What a resumable upload reads from. */
export type ResumableData = Uint8Array | Blob | ReadableStream<Uint8Array>;

/** Options of {@linkcode createResumableUpload}. */
export interface ResumableUploadOptions {
  /** Content type. Default `application/octet-stream`. */
  contentType?: string;
  /** Overwrite an existing object. Default false. */
  upsert?: boolean;
  /** Cache-Control max-age in seconds. */
  cacheControl?: number | null;
  /** Chunk size in bytes, a positive integer (`RangeError` otherwise). Default 6 MiB. */
  chunkSize?: number;
  /** A saved upload URL to resume; null starts a new upload. */
  uploadUrl?: string | null;
  /** User metadata (JSON), sent Base64-encoded in `Upload-Metadata`. */
  metadata?: Record<string, unknown> | null;
  /** Total size of a stream, when known (else deferred length). */
  size?: number | null;
  /** Attempts per request on transient faults. Default 5. */
  maxAttempts?: number;
  /** Backoff base in milliseconds. Default 500. */
  retryBaseDelayMs?: number;
  /** Backoff cap in milliseconds. Default 10000. */
  retryMaxDelayMs?: number;
  /** Optional store that remembers upload URLs by fingerprint. */
  urlStore?: UploadUrlStore | null;
}

/** A resumable upload; no I/O happens until {@linkcode ResumableUpload.await}. */
export interface ResumableUpload {
  /** Null until the upload is created; persist it to resume. */
  readonly uploadUrl: string | null;
  /** Progress after every accepted chunk. */
  readonly progress: StateFlow<ResumableUploadProgress>;
  /**
   * Uploads until every byte is accepted. Cancelling pauses: the result is
   * `Failure(CANCELLED)` and a new handle with the saved `uploadUrl` resumes.
   *
   * @param options Cancellation.
   * @returns Success when complete.
   */
  await(options?: { signal?: AbortSignal }): Promise<ServiceResult<void>>;
}

function progressOf(bytesUploaded: number, totalBytes: number): ResumableUploadProgress {
  return {
    bytesUploaded,
    totalBytes,
    fraction: totalBytes > 0 ? Math.min(1, bytesUploaded / totalBytes) : 0,
    isComplete: totalBytes > 0 && bytesUploaded >= totalBytes,
  };
}

/** Parses `Upload-Offset` strictly: digits only. */
export function parseUploadOffset(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** Reads chunks of exactly `size` bytes (the last may be shorter) from any source, from a given offset. */
class ChunkSource {
  readonly length: number | null;
  readonly rereadable: boolean;
  #data: ResumableData;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #pending: Uint8Array | null = null;
  #streamPos = 0;
  #buffered: { start: number; bytes: Uint8Array } | null = null;

  constructor(data: ResumableData, size: number | null) {
    this.#data = data;
    if (data instanceof Uint8Array) {
      this.length = data.length;
      this.rereadable = true;
    } else if (typeof Blob !== "undefined" && data instanceof Blob) {
      this.length = data.size;
      this.rereadable = true;
    } else {
      this.length = size;
      this.rereadable = false;
    }
  }

  /** Returns `size` bytes from `offset` (fewer at the end); null at end of data. */
  async read(offset: number, size: number): Promise<Uint8Array | null> {
    if (this.length !== null && offset >= this.length) {
      return this.length === 0 && offset === 0 ? null : null;
    }
    const d = this.#data;
    if (d instanceof Uint8Array) return d.subarray(offset, Math.min(d.length, offset + size));
    if (typeof Blob !== "undefined" && d instanceof Blob) {
      return new Uint8Array(await d.slice(offset, Math.min(d.size, offset + size)).arrayBuffer());
    }
    const b = this.#buffered;
    if (b && offset >= b.start && offset < b.start + b.bytes.length) {
      return b.bytes.subarray(offset - b.start);
    }
    if (offset !== this.#streamPos) {
      throw new RangeError(
        `Cannot resume a one-shot stream at byte ${offset}: the stream is at byte ${this.#streamPos} and cannot be re-read`,
      );
    }
    const out = new Uint8Array(size);
    let filled = 0;
    this.#reader ??= (d as ReadableStream<Uint8Array>).getReader();
    while (filled < size) {
      let piece = this.#pending;
      this.#pending = null;
      if (!piece) {
        const { done, value } = await this.#reader.read();
        if (done) break;
        piece = value;
      }
      const take = Math.min(piece.length, size - filled);
      out.set(piece.subarray(0, take), filled);
      filled += take;
      if (take < piece.length) this.#pending = piece.subarray(take);
    }
    if (filled === 0) return null;
    const chunk = filled === size ? out : out.subarray(0, filled);
    this.#buffered = { start: offset, bytes: chunk };
    this.#streamPos = offset + filled;
    return chunk;
  }

  /** Whether the stream ended exactly at `offset` (for deferred length). */
  async endsAt(offset: number): Promise<boolean> {
    if (this.length !== null) return offset >= this.length;
    if (offset !== this.#streamPos) return false;
    if (this.#pending) return false;
    this.#reader ??= (this.#data as ReadableStream<Uint8Array>).getReader();
    const { done, value } = await this.#reader.read();
    if (done) return true;
    this.#pending = value;
    return false;
  }

  cancel(): void {
    this.#reader?.cancel().catch(() => {});
  }
}

const TUS = { "Tus-Resumable": "1.0.0" } as const;

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

class Upload implements ResumableUpload {
  #client: BaseClient;
  #bucket: string;
  #path: string;
  #source: ChunkSource;
  #o: ResumableUploadOptions;
  #chunkSize: number;
  #url: string | null;
  #progress: MutableStateFlow<ResumableUploadProgress>;
  #running: Promise<ServiceResult<void>> | null = null;

  constructor(
    client: BaseClient,
    bucket: string,
    path: string,
    data: ResumableData,
    o: ResumableUploadOptions,
  ) {
    this.#client = client;
    this.#bucket = bucket;
    this.#path = path;
    this.#o = o;
    this.#chunkSize = o.chunkSize ?? RESUMABLE_DEFAULT_CHUNK_SIZE;
    this.#source = new ChunkSource(data, o.size ?? null);
    this.#url = o.uploadUrl ?? null;
    this.#progress = new MutableStateFlow(progressOf(0, this.#source.length ?? 0));
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
    return this.#progress;
  }

  await(options: { signal?: AbortSignal } = {}): Promise<ServiceResult<void>> {
    this.#running ??= this.#run(options.signal).finally(() => (this.#running = null));
    return this.#running;
  }

  #fingerprint(): string {
    return `${this.#bucket}/${this.#path}:${this.#source.length ?? "stream"}`;
  }

  #sameOrigin(url: string): boolean {
    try {
      return new URL(url).origin === new URL(this.#client.url).origin;
    } catch {
      return false;
    }
  }

  #metadata(): string {
    const pairs: Array<[string, string]> = [
      ["bucketName", this.#bucket],
      ["objectName", this.#path],
      ["contentType", this.#o.contentType ?? "application/octet-stream"],
    ];
    if (this.#o.cacheControl !== undefined && this.#o.cacheControl !== null) {
      pairs.push(["cacheControl", String(this.#o.cacheControl)]);
    }
    if (this.#o.metadata) pairs.push(["metadata", JSON.stringify(this.#o.metadata)]);
    return pairs.map(([k, v]) => `${k} ${encodeBase64(v)}`).join(",");
  }

  #delay(attempt: number, retryAfter: string | null): number {
    const policy = resolveRetryPolicy({
      maxAttempts: this.#o.maxAttempts ?? 5,
      baseDelayMs: this.#o.retryBaseDelayMs ?? 500,
      maxDelayMs: this.#o.retryMaxDelayMs ?? 10_000,
    });
    const after = parseRetryAfter(retryAfter);
    return Math.max(backoffDelay(attempt, policy), Math.min(after ?? 0, 60_000));
  }

  async #create(signal?: AbortSignal): Promise<ServiceResult<void>> {
    const headers: Record<string, string> = {
      ...TUS,
      "Upload-Metadata": this.#metadata(),
      "x-upsert": String(this.#o.upsert ?? false),
    };
    if (this.#source.length !== null) headers["Upload-Length"] = String(this.#source.length);
    else headers["Upload-Defer-Length"] = "1";
    const r = await this.#client.request({
      method: "POST",
      area: "storage",
      path: "/upload/resumable",
      headers,
      responseType: "none",
      timeout: 0,
      signal,
    });
    if (!r.ok) return r;
    const location = r.value.headers.get("location");
    if (!location) {
      return failure({
        message: "The server created the upload without a Location",
        category: "DECODE",
      });
    }
    this.#url = new URL(location, `${this.#client.url}/storage/v1/upload/resumable`).href;
    await this.#o.urlStore?.set(this.#fingerprint(), this.#url);
    return success(undefined);
  }

  async #head(signal?: AbortSignal): Promise<ServiceResult<number>> {
    const url = this.#url!;
    const r = await this.#client.request({
      method: "HEAD",
      url,
      headers: { ...TUS },
      credentials: this.#sameOrigin(url) ? "token" : "none",
      responseType: "none",
      retry: false,
      signal,
    });
    if (!r.ok) return r;
    const offset = parseUploadOffset(r.value.headers.get("upload-offset"));
    if (offset === null || (this.#source.length !== null && offset > this.#source.length)) {
      return failure({
        message: `The server sent an invalid Upload-Offset: ${
          r.value.headers.get("upload-offset")
        }`,
        category: "DECODE",
      });
    }
    return success(offset);
  }

  async #run(signal?: AbortSignal): Promise<ServiceResult<void>> {
    try {
      return await this.#loop(signal);
    } catch (e) {
      if (e instanceof RangeError) {
        return failure({ message: e.message, category: "INVALID_ARGUMENT", cause: e });
      }
      return failure({
        message: `Resumable upload failed: ${e instanceof Error ? e.message : String(e)}`,
        category: "UNKNOWN",
        cause: e,
      });
    }
  }

  async #loop(signal?: AbortSignal): Promise<ServiceResult<void>> {
    const cancelled = () => failure({ message: "Upload paused: cancelled", category: "CANCELLED" });
    if (!this.#url && this.#o.urlStore) {
      this.#url = (await this.#o.urlStore.get(this.#fingerprint())) ?? null;
    }
    let offset = 0;
    if (this.#url) {
      const h = await this.#head(signal);
      if (!h.ok) {
        if (signal?.aborted) return cancelled();
        if (h.error.status === 404 || h.error.status === 410) {
          if (!this.#source.rereadable) {
            return failure({
              message:
                "The saved upload no longer exists and a one-shot stream cannot be re-read from the start",
              category: "NOT_FOUND",
              status: h.error.status,
            });
          }
          await this.#o.urlStore?.remove(this.#fingerprint());
          this.#url = null;
        } else return h;
      } else offset = h.value;
    }
    if (!this.#url) {
      const c = await this.#create(signal);
      if (!c.ok) return signal?.aborted ? cancelled() : c;
    }
    const total = this.#source.length;
    this.#setProgress(offset, total ?? 0);
    let attempt = 0;
    let lastOffset = offset;
    while (true) {
      if (signal?.aborted) return cancelled();
      if (total !== null && offset >= total) break;
      const chunk = await this.#source.read(offset, this.#chunkSize);
      const done = chunk === null ||
        (total === null && (await this.#source.endsAt(offset + chunk.length)));
      if (chunk === null && total === null) {
        // Deferred length and nothing left: declare the final length.
        const fin = await this.#patch(new Uint8Array(0), offset, offset, signal);
        if (!fin.ok) return signal?.aborted ? cancelled() : fin;
        break;
      }
      const body = chunk ?? new Uint8Array(0);
      const r = await this.#patch(
        body,
        offset,
        done && total === null ? offset + body.length : null,
        signal,
      );
      if (r.ok) {
        const next = r.value;
        if (next < offset || next > offset + body.length) {
          return failure({
            message: `The server moved Upload-Offset from ${offset} to ${next}`,
            category: "DECODE",
          });
        }
        if (next === offset && body.length > 0) {
          attempt++;
          if (attempt >= (this.#o.maxAttempts ?? 5)) {
            return failure({
              message: `The server did not advance the upload past byte ${offset}`,
              category: "SERVER",
            });
          }
          if (!(await sleep(this.#delay(attempt, null), signal))) return cancelled();
          continue;
        }
        offset = next;
        if (offset > lastOffset) attempt = 0;
        lastOffset = offset;
        this.#setProgress(offset, total ?? (done ? offset : 0));
        if (done && total === null) break;
        continue;
      }
      if (signal?.aborted) return cancelled();
      const e = r.error;
      const transient = e.category === "NETWORK" || e.category === "TIMEOUT" ||
        (e.status !== null &&
          (e.status >= 500 || e.status === 409 || e.status === 423 || e.status === 429));
      if (!transient) return r;
      attempt++;
      if (attempt >= (this.#o.maxAttempts ?? 5)) return r;
      if (
        e.status !== 409 &&
        !(await sleep(
          this.#delay(attempt, e.retryAfter === null ? null : String(e.retryAfter)),
          signal,
        ))
      ) {
        return cancelled();
      }
      const h = await this.#head(signal);
      if (!h.ok) {
        if (signal?.aborted) return cancelled();
        continue;
      }
      offset = h.value;
      this.#setProgress(offset, total ?? 0);
    }
    await this.#o.urlStore?.remove(this.#fingerprint());
    this.#setProgress(offset, total ?? offset);
    return success(undefined);
  }

  async #patch(
    body: Uint8Array,
    offset: number,
    finalLength: number | null,
    signal?: AbortSignal,
  ): Promise<ServiceResult<number>> {
    const url = this.#url!;
    const headers: Record<string, string> = { ...TUS, "Upload-Offset": String(offset) };
    if (finalLength !== null) headers["Upload-Length"] = String(finalLength);
    const r = await this.#client.request({
      method: "PATCH",
      url,
      headers,
      body,
      contentType: "application/offset+octet-stream",
      credentials: this.#sameOrigin(url) ? "token" : "none",
      responseType: "none",
      retry: false,
      timeout: 0,
      signal,
    });
    if (!r.ok) return r;
    const next = parseUploadOffset(r.value.headers.get("upload-offset"));
    if (next === null) {
      return failure({ message: "The server sent no valid Upload-Offset", category: "DECODE" });
    }
    return success(next);
  }
}

/**
 * Creates a resumable upload handle; no I/O until `await()`. Throws
 * `RangeError` at once for a `chunkSize` that is not a positive integer and
 * `TypeError` for a bad bucket or path.
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
  options: ResumableUploadOptions = {},
): ResumableUpload {
  const chunkSize = options.chunkSize ?? RESUMABLE_DEFAULT_CHUNK_SIZE;
  if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
    throw new RangeError(
      `Cannot upload as 'chunkSize' must be a positive integer: current value is ${chunkSize}`,
    );
  }
  encodeBucket(bucket);
  const checked = checkObjectPath(path);
  if ("error" in checked) throw new TypeError(checked.error);
  return new Upload(client, bucket, checked.key, data, options);
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
 * const r = await uploadResumable(storage, "videos", "intro.mp4", new Uint8Array(1024), { chunkSize: 256 * 1024 });
 * ```
 *
 * @param storage Anything with `createResumableUpload` (the storage client).
 * @param bucket The bucket id.
 * @param path The object key.
 * @param data Bytes, a Blob, or a stream.
 * @param options Same as {@linkcode createResumableUpload} without `uploadUrl`.
 * @returns Success when every byte is accepted.
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
  options: Omit<ResumableUploadOptions, "uploadUrl"> & { signal?: AbortSignal } = {},
): Promise<ServiceResult<void>> {
  const { signal, ...rest } = options;
  return storage.createResumableUpload(bucket, path, data, rest).await({ signal });
}
