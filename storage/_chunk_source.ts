/**
 * Where a resumable upload's chunks come from: bytes, a Blob (sent as
 * slices, without copying) or a stream (read one chunk at a time, with a BYOB
 * reader for byte streams), from any offset, and the content fingerprint that
 * keys a saved upload URL. Kept apart from the upload's state machine in
 * `tus.ts`, which asks it for chunks and never reads the data itself.
 *
 * @module
 */

import { bounded } from "../core/_abort.ts";
import { describeThrown } from "../core/_thrown.ts";
import { sha256 } from "../core/crypto.ts";
import { encodeBase64Url } from "../core/encoding.ts";
import { isBlobToRead, isUint8Array, localBytes } from "../core/_realm.ts";
import { isAnyBlob } from "./_blob.ts";
import type { ResumableData } from "./tus.ts";

/**
 * The data's own failure (a stream's error, a file Blob that cannot be read) as the upload's: a
 * `RangeError` with its reason, which the upload reports as `INVALID_ARGUMENT` and does not retry.
 */
export function dataFailed(error: unknown): RangeError {
  return error instanceof RangeError
    ? error
    : new RangeError(`Cannot upload as reading 'data' failed: ${describeThrown(error)}`, {
      cause: error,
    });
}

/**
 * Throws {@linkcode dataFailed}'s error when `data` that fetch failed to send is a Blob (an upload's,
 * a chunk of one) that cannot be read: fetch reports a file Blob whose file changed (Node's
 * `NotReadableError`) as a network error, which retrying cannot mend. Anything else passes.
 */
export async function checkReadable(data: unknown): Promise<void> {
  if (isAnyBlob(data)) await readOf(data.slice(0, 1).arrayBuffer());
}

/** A read of the data, whose failure is {@linkcode dataFailed}'s. */
function readOf<T>(read: Promise<T>): Promise<T> {
  return read.catch((error) => {
    throw dataFailed(error);
  });
}

/**
 * The fewest bytes a BYOB read asks for. Deno 2.9 never answers a read of fewer than about 8
 * bytes at a chunk boundary of a request body Deno.serve received chunked: the one-byte check for
 * a stream's end hung the upload until its caller gave up.
 */
const MIN_READ = 16_384;

/** The piece the fingerprint hashes at a time (it digests the pieces' digests). */
const FINGERPRINT_PIECE = 1_048_576;

/**
 * A stream's piece, which must be a `Uint8Array`: another view (a `Uint16Array`) would be copied
 * element by element, each cut to a byte.
 */
function bytesOf(value: unknown): Uint8Array {
  // A piece of another realm's stream (an iframe's) is read through a view of this realm.
  if (isUint8Array(value)) return localBytes(value)!;
  throw new RangeError(
    `Cannot upload as the stream yielded a ${
      Object.prototype.toString.call(value).slice(8, -1)
    }, not a Uint8Array`,
  );
}

/**
 * The bytes of a Blob that fetch may not take, from `offset`: `want` of them, as the Blob's size
 * promised (`RangeError` otherwise).
 */
async function readSlice(blob: Blob, offset: number, want: number): Promise<Uint8Array> {
  const bytes = localBytes(await readOf(blob.slice(offset, offset + want).arrayBuffer()));
  if (bytes?.length !== want) {
    throw new RangeError(
      `Cannot upload as 'data' must hold its size of ${blob.size} bytes: the Blob reads ${
        bytes === null ? "no bytes" : `${bytes.length} bytes`
      } where ${want} were expected from byte ${offset}`,
    );
  }
  return bytes;
}

/** One request body: bytes, or a slice of a Blob source (sent without copying it). */
export type Chunk = Uint8Array | Blob;

/** A chunk's size in bytes; 0 for none. */
export function sizeOf(chunk: Chunk | null): number {
  return chunk === null ? 0 : chunk instanceof Uint8Array ? chunk.length : chunk.size;
}

/** A chunk kept from a one-shot stream, to re-send it after a re-sync. */
interface KeptChunk {
  readonly start: number;
  /** The chunk's bytes: `buffer`, or its start for the last, shorter chunk. */
  readonly bytes: Uint8Array;
  /** The whole buffer, reused for a later chunk once this one is dropped. */
  readonly buffer: Uint8Array;
}

/**
 * Reads chunks of exactly `size` bytes (the last may be shorter) from any
 * source, from a given offset. A one-shot stream keeps its last two chunks
 * (the one in flight and the one read ahead), so a re-sync back into either
 * is served from memory; reading a third reuses the buffer of the oldest,
 * whose request is over by then (its answer has come, and a TUS server
 * answers a PATCH only after reading its body; a body sent as a stream is
 * not copied, so this ordering is what makes the reuse safe).
 */
export class ChunkSource {
  /** The data's length: known for bytes and Blobs, from `size` or the server for streams. */
  declare length: number | null;
  declare readonly rereadable: boolean;
  #data: ResumableData;
  /** A Blob that fetch may not take (`isBlobToRead`): its chunks are read, and sent as bytes. */
  #readSlices = false;
  #reader?: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader;
  #byob = false;
  #pending: Uint8Array | null = null;
  /** A byte stream's reused buffer for reads that cannot go straight into a chunk. */
  #scratch?: Uint8Array;
  #streamPos = 0;
  #kept: KeptChunk[] = [];
  /** Where the last chunk returned starts: the chunk in flight while the next is read. */
  #lastStart: number | null = null;
  #cancelled = false;
  /** How long a stream that has given every declared byte may take to end (0: no bound). */
  readonly #endWaitMs: number;

  constructor(data: ResumableData, size: number | null, endWaitMs = 0) {
    this.#data = data;
    this.#endWaitMs = endWaitMs;
    // Bytes and Blobs have their length and are read again at will; a stream is read once.
    const rereadable = data instanceof Uint8Array || isAnyBlob(data);
    this.length = rereadable ? sizeOf(data as Chunk) : size;
    this.rereadable = rereadable;
    this.#readSlices = isBlobToRead(data);
  }

  /**
   * Returns `size` bytes from `offset` (fewer only at the end of the data);
   * null at the end. A stream is read forward only: an offset past what was
   * read skips the bytes between (a resumed upload starts its stream at byte
   * 0), and an offset inside the kept chunks re-reads from memory, topped up
   * from the stream so that only the last chunk is ever short. A stream with
   * a declared length is read no further than it, and must end there
   * (`RangeError` otherwise, before its last bytes are sent).
   */
  async read(offset: number, size: number): Promise<Chunk | null> {
    if (this.length !== null && offset >= this.length) {
      if (!this.rereadable && offset === this.#streamPos) await this.#checkDeclaredEnd();
      return null;
    }
    const want = this.length === null ? size : Math.min(size, this.length - offset);
    const d = this.#data;
    if (d instanceof Uint8Array) return d.subarray(offset, offset + want);
    if (this.#readSlices) return await readSlice(d as Blob, offset, want);
    if (this.rereadable) return (d as Blob).slice(offset, offset + want); // a Blob fetch takes
    const kept = this.#keptAt(offset);
    if (kept) {
      const from = offset - kept.start;
      const chunk = kept.bytes.length - from >= want
        ? kept.bytes.subarray(from, from + want)
        : await this.#merge(offset, want);
      this.#lastStart = offset;
      return chunk;
    }
    if (offset < this.#streamPos) {
      throw new RangeError(
        `Cannot resume a one-shot stream at byte ${offset}: the stream is at byte ${this.#streamPos} and cannot be re-read`,
      );
    }
    if (offset > this.#streamPos) {
      this.#kept = [];
      await this.#skip(offset - this.#streamPos);
    }
    // The oldest chunk leaves before its buffer is overwritten.
    const dropped = this.#kept.length === 2 ? this.#kept.shift()! : null;
    const [buffer, filled] = await this.#fill(
      dropped?.buffer.length === want ? dropped.buffer : new Uint8Array(want),
      0,
    );
    if (filled === 0) {
      // Nothing was written over it (a byte stream may have moved its memory).
      if (dropped) {
        this.#kept.unshift(
          dropped.buffer === buffer ? dropped : {
            start: dropped.start,
            bytes: buffer.subarray(0, dropped.bytes.length),
            buffer,
          },
        );
      }
      return null;
    }
    const bytes = filled === want ? buffer : buffer.subarray(0, filled);
    this.#kept.push({ start: offset, bytes, buffer });
    this.#streamPos = offset + filled;
    this.#lastStart = offset;
    await this.#checkDeclaredEnd();
    return bytes;
  }

  /** The kept chunk holding byte `at`, if any. */
  #keptAt(at: number): KeptChunk | undefined {
    return this.#kept.find((k) => at >= k.start && at < k.start + k.bytes.length);
  }

  /**
   * After a re-sync into the middle of kept data, or a read ahead that
   * starts inside it: one new buffer holding every kept byte from `offset`
   * (from the start of the chunk in flight when that is earlier, so that a
   * second fault can still re-send it), topped up from the stream to a whole
   * chunk after `offset`. It replaces the kept chunks (a rare path, after a
   * fault); the chunk returned is its `want` bytes from `offset`.
   */
  async #merge(offset: number, want: number): Promise<Chunk | null> {
    const inFlight = this.#lastStart;
    const start = inFlight !== null && inFlight < offset &&
        this.#keptAt(inFlight)
      ? inFlight
      : offset;
    const need = offset - start + want;
    let out: Uint8Array = new Uint8Array(Math.max(need, this.#streamPos - start));
    let filled = 0;
    for (const k of this.#kept) {
      const at = start + filled;
      if (k.start + k.bytes.length <= at || k.start > at) continue;
      const piece = k.bytes.subarray(at - k.start);
      out.set(piece, filled);
      filled += piece.length;
    }
    if (start + filled !== this.#streamPos) {
      throw new RangeError(
        `Cannot re-read the stream at byte ${offset}: its kept bytes have a gap`,
      );
    }
    if (filled < need) {
      const [moved, n] = await this.#fill(out, filled);
      out = moved;
      filled += n;
      this.#streamPos = start + filled;
    }
    const all = filled === out.length ? out : out.subarray(0, filled);
    this.#kept = [{ start, bytes: all, buffer: out }];
    await this.#checkDeclaredEnd();
    return all.subarray(offset - start, Math.min(need, filled));
  }

  /** Reads and drops `count` bytes of the stream (a resumed upload's accepted part). */
  async #skip(count: number): Promise<void> {
    let scratch: Uint8Array = new Uint8Array(Math.min(count, 1024 * 1024));
    const room = scratch.length;
    let left = count;
    while (left > 0) {
      const [moved, n] = await this.#fill(left >= room ? scratch : scratch.subarray(0, left), 0);
      // Checked first: a read that ended the stream may leave a fresh buffer only `left` long.
      if (n === 0) {
        throw new RangeError(
          `Cannot resume the stream at byte ${this.#streamPos + count - left}: it ended before`,
        );
      }
      scratch = new Uint8Array(moved.buffer, 0, room);
      left -= n;
    }
    this.#streamPos += count;
  }

  /** A stream with a declared length must end exactly there. */
  async #checkDeclaredEnd(): Promise<void> {
    if (
      this.length !== null && this.#streamPos === this.length && !(await this.#endsInTime())
    ) {
      throw new RangeError(
        `Cannot upload as the stream is longer than its declared size of ${this.length} bytes`,
      );
    }
  }

  /**
   * Whether the stream ends now, waiting for its answer at most the end wait: a source that
   * gave every byte it owes but never closes fails the upload (`RangeError`) instead of holding
   * it for ever. The upload stays resumable: its last chunk has not been sent.
   */
  async #endsInTime(): Promise<boolean> {
    const ms = this.#endWaitMs;
    const r = await bounded(this.#streamEnded(), ms > 0 ? ms : Infinity);
    if (r.kind === "done") return r.value;
    if (r.kind === "failed") throw r.error;
    throw new RangeError(
      `Cannot complete the upload as the stream gave its ${this.#streamPos} bytes but did not end within ${ms} ms`,
    );
  }

  /**
   * The stream's reader, made on first use: a BYOB reader when the stream is
   * a byte stream (files, request and response bodies), so that its bytes
   * are read straight into the chunk buffers, and a default reader otherwise.
   */
  #open(): ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader {
    if (this.#reader) return this.#reader;
    const stream = this.#data as ReadableStream<Uint8Array>;
    try {
      this.#reader = stream.getReader({ mode: "byob" });
      this.#byob = true;
    } catch {
      this.#reader = stream.getReader(); // not a byte stream (a locked one throws here too)
    }
    return this.#reader;
  }

  /**
   * Reads an empty Blob once, before its upload is created: a lazy file Blob (Bun's `Bun.file`)
   * of a path that does not exist reports size 0 without an error, and would upload as an empty
   * object (replacing the object with `upsert`); reading it throws (`ENOENT`), as does Bun's
   * fetch of the whole Blob (a plain upload), though not a read of its empty slice. Any other
   * empty source reads nothing here.
   *
   * @throws RangeError when the Blob cannot be read.
   */
  async checkEmptyBlob(): Promise<void> {
    const d = this.#data;
    if (this.length !== 0 || !this.rereadable || d instanceof Uint8Array) return;
    try {
      await (d as Blob).arrayBuffer();
    } catch (e) {
      throw new RangeError(
        `Cannot upload as 'data' must be a Blob that can be read: reading it failed (${
          describeThrown(e)
        })`,
        { cause: e },
      );
    }
  }

  /**
   * Whether `chunk`, a Blob slice of `size` bytes, holds fewer bytes than that when read: a
   * lazy file Blob (Bun's `Bun.file`) keeps the size its file had when first asked and reads
   * the file as it is now, so after the file shrank its slices past the new end read short
   * (Bun's fetch sends what is there). Bytes and other Blobs never do (Node's file Blobs and a
   * browser's files fail the read instead: `NotReadableError`).
   */
  static async readsShort(chunk: Chunk): Promise<boolean> {
    if (chunk instanceof Uint8Array || chunk.size === 0) return false;
    return (await chunk.slice(chunk.size - 1).arrayBuffer()).byteLength === 0;
  }

  /**
   * After `cancel()` (a failed or paused run) nothing more is read, nor are the chunks kept sent:
   * no truncated upload (`RangeError`).
   */
  checkLive(): void {
    if (this.#cancelled) {
      throw new RangeError(
        "Cannot read the stream as a failed or paused run cancelled it; resume with a fresh stream",
      );
    }
  }

  /**
   * Reads the next bytes of the stream into `out` from `from` until it is
   * full or the stream ends. Returns the buffer holding them and the count
   * read: `out` itself, or for a byte stream the same range of the memory
   * it moved `out`'s bytes into (a BYOB read transfers the buffer it fills,
   * so `out` is unusable afterwards). A byte stream reads straight into
   * `out` only where `out` starts its buffer: Node 20's file streams
   * mishandle views at an offset, so the rest goes through one reused
   * scratch buffer and is copied (still no garbage per piece).
   */
  async #fill(out: Uint8Array, from: number): Promise<[Uint8Array, number]> {
    const size = out.length;
    let filled = from;
    const reader = this.#open();
    while (filled < size) {
      this.checkLive();
      let piece = this.#pending;
      this.#pending = null;
      if (!piece && this.#byob) {
        // Straight into `out` where it starts its buffer, else into the scratch buffer.
        const direct = filled === 0 && out.byteOffset === 0;
        const into = direct ? out : (this.#scratch ??= new Uint8Array(Math.min(size, 1 << 20)));
        const room = into.length; // read before the read moves (detaches) it
        const { done, value } = await readOf((reader as ReadableStreamBYOBReader).read(
          (direct
            ? into
            : into.subarray(0, Math.min(room, Math.max(size - filled, MIN_READ)))) as Uint8Array<
              ArrayBuffer
            >,
        ));
        this.checkLive(); // a cancelled read gives no view back: its bytes are gone
        // The read that ends the stream gives back an empty view of the moved memory; workerd
        // before compatibility date 2024-05-13 (internal streams: Blobs, bodies) gives none.
        const moved = value
          ? new Uint8Array(value.buffer, 0, room)
          : into.byteLength === room
          ? into
          : new Uint8Array(room);
        if (direct) out = moved;
        else this.#scratch = moved;
        if (done) break;
        if (direct) {
          filled = value!.length;
          continue;
        }
        // Copied below; bytes past the chunk stay pending (a view of the scratch buffer, which is
        // read into again only once they are taken).
        piece = value!;
      }
      if (!piece) {
        const { done, value } = await readOf(
          (reader as ReadableStreamDefaultReader<Uint8Array>).read(),
        );
        this.checkLive();
        if (done) break;
        piece = bytesOf(value);
      }
      const take = Math.min(piece.length, size - filled);
      out.set(piece.subarray(0, take), filled);
      filled += take;
      if (take < piece.length) this.#pending = piece.subarray(take);
    }
    return [out, filled - from];
  }

  /**
   * Takes a length the server holds for a stream of unknown length (a
   * resumed upload): the stream is read no further and must end there.
   */
  declare(length: number): void {
    this.length ??= length;
  }

  /**
   * What identifies the data for the URL store: a SHA-256 over every byte of bytes and Blobs
   * (read in pieces of {@linkcode FINGERPRINT_PIECE}, so no more than a piece is copied), and over
   * a stream's first `head` bytes, which it keeps for the upload anyway.
   */
  async fingerprint(head: number): Promise<string> {
    const d = this.#data;
    if (!this.rereadable) {
      // A stream's chunks are bytes; copied, as WebCrypto refuses shared memory.
      const chunk = (await this.read(0, head)) as Uint8Array | null;
      return encodeBase64Url(await sha256(chunk?.slice() ?? new Uint8Array(0)));
    }
    const size = this.length!;
    const digests = new Uint8Array(Math.ceil(size / FINGERPRINT_PIECE) * 32);
    for (let at = 0, i = 0; at < size; at += FINGERPRINT_PIECE, i += 32) {
      const piece = d instanceof Uint8Array
        ? d.slice(at, at + FINGERPRINT_PIECE)
        : new Uint8Array(await (d as Blob).slice(at, at + FINGERPRINT_PIECE).arrayBuffer());
      digests.set(await sha256(piece), i);
    }
    return encodeBase64Url(await sha256(digests));
  }

  /**
   * Checks that a stream ends exactly at `at` before its upload is reported
   * complete, reading (and dropping) the bytes up to there when a resume
   * found them already on the server. `RangeError` otherwise.
   */
  async verifyEnd(at: number): Promise<void> {
    if (this.rereadable) return;
    if (this.#streamPos <= at) {
      if (this.#streamPos < at) {
        this.#kept = [];
        await this.#skip(at - this.#streamPos);
      }
      if (await this.#endsInTime()) return;
    }
    throw new RangeError(`Cannot complete the upload as the stream is longer than ${at} bytes`);
  }

  /**
   * Whether the data can still be read from byte 0: bytes and Blobs always, a
   * stream until it has moved past its first chunk (kept in memory).
   */
  get canRestart(): boolean {
    return this.rereadable || !this.#reader || this.#kept.some((k) => k.start === 0);
  }

  /** Whether the stream ended exactly at `offset` (for deferred length). */
  async endsAt(offset: number): Promise<boolean> {
    if (this.length !== null) return offset >= this.length;
    return offset === this.#streamPos && await this.#streamEnded();
  }

  /** Whether the stream has nothing after its current position (peeks one piece). */
  async #streamEnded(): Promise<boolean> {
    const reader = this.#open();
    while (this.#pending === null) {
      this.checkLive();
      const { done, value } = await readOf(
        this.#byob
          ? (reader as ReadableStreamBYOBReader).read(new Uint8Array(MIN_READ))
          : (reader as ReadableStreamDefaultReader<Uint8Array>).read(),
      );
      this.checkLive();
      if (done) return true;
      if (bytesOf(value).length > 0) this.#pending = value!;
    }
    return false;
  }

  cancel(): void {
    this.#cancelled = true;
    this.#reader?.cancel().catch(() => {});
  }
}
