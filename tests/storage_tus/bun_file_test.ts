/**
 * Resumable uploads of a file Blob that behaves as Bun's `Bun.file()` does, against a real TUS
 * peer: the Blob is lazy (its size is read from the file once, when first asked: 0 for a path
 * that does not exist; its bytes are read from the file as it is at each read) and Bun's fetch
 * sends a Blob body by reading it then (fewer bytes than its size after the file shrank; `ENOENT`
 * for a missing file). Seen in Bun 1.4.5 (tests/runtime/bun_tus_flow.mjs): a missing file uploaded
 * as an empty object and reported Success; a file that shrank mid-upload failed as `SERVER` ("did
 * not advance") after every retry's backoff.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/mod.ts";
import { bytes, withPeer } from "./_tus_peer.ts";

/** The file a {@linkcode LazyFile} reads: its bytes now, or null once it does not exist. */
interface FakeFile {
  bytes: Uint8Array | null;
}

const enoent = () =>
  Object.assign(new Error("ENOENT: no such file or directory, open '/x.bin'"), {
    code: "ENOENT",
  });

/**
 * A Blob as `Bun.file()` makes it: `size` fixed when made (0 for a missing file), its bytes the
 * file's at each read, a slice the same kind over the same file. A read opens the file (and fails
 * when it is missing) unless it is an empty slice, which Bun reads without opening it.
 */
class LazyFile extends Blob {
  readonly #file: FakeFile;
  readonly #start: number;
  readonly #size: number;
  readonly #opens: boolean;
  constructor(file: FakeFile, start = 0, size = file.bytes?.length ?? 0, opens = true) {
    super([]);
    this.#file = file;
    this.#start = start;
    this.#size = size;
    this.#opens = opens;
  }
  override get size(): number {
    return this.#size;
  }
  override slice(start = 0, end = this.#size): Blob {
    const to = Math.min(end, this.#size);
    const size = Math.max(0, to - start);
    return new LazyFile(this.#file, this.#start + start, size, size > 0);
  }
  #now(): Uint8Array<ArrayBuffer> {
    const b = this.#file.bytes;
    if (b === null) {
      if (this.#opens) throw enoent();
      return new Uint8Array(0);
    }
    return b.slice(Math.min(this.#start, b.length), Math.min(this.#start + this.#size, b.length));
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    try {
      return Promise.resolve(this.#now().buffer);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.arrayBuffer().then((b) => new Uint8Array(b));
  }
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new ReadableStream({
      pull: async (c) => {
        c.enqueue(await this.bytes());
        c.close();
      },
    });
  }
}

/** Bun's fetch as far as a Blob body goes: it reads the Blob when sending (what is there now). */
function bunFetch(log: string[]): typeof fetch {
  return async (input, init) => {
    const body = init?.body instanceof LazyFile ? await init.body.bytes() : init?.body ?? null;
    log.push(`${init?.method} ${body instanceof Uint8Array ? body.length : "-"}`);
    return await fetch(input, { ...init, body });
  };
}

Deno.test("a lazy file Blob of a missing file (Bun.file of a wrong path: size 0) fails the upload before anything is created, instead of storing an empty object", async () => {
  await withPeer(async (peer) => {
    for (
      const [label, options] of [
        ["creation with upload", {}],
        ["creation without upload", { creationWithUpload: false }],
        ["with a URL store", {
          urlStore: { get: () => null, set: () => {}, remove: () => {} },
        }],
      ] as const
    ) {
      const log: string[] = [];
      const client = createBaseClient(peer.url, "anon-key-123456", { fetch: bunFetch(log) });
      const missing = new LazyFile({ bytes: null });
      assert.equal(missing.size, 0);
      const up = createResumableUpload(client, "b", "missing.bin", missing, {
        upsert: true,
        ...options,
      });
      const r = await up.await();
      assert.equal(r.ok ? "stored an empty object" : r.error.category, "INVALID_ARGUMENT", label);
      assert.match(
        r.errorOrNull()!.message,
        /^Cannot upload as 'data' must be a Blob that can be read: reading it failed \(.*ENOENT/,
        label,
      );
      assert.deepEqual(log, [], `${label}: no request`);
      assert.equal(up.uploadUrl, null, label);
    }
    // An empty Blob that reads uploads as an empty object, as before.
    const empty = createResumableUpload(
      createBaseClient(peer.url, "anon-key-123456", { fetch: bunFetch([]) }),
      "b",
      "empty.bin",
      new LazyFile({ bytes: new Uint8Array(0) }),
    );
    assert.ok((await empty.await()).ok);
    assert.deepEqual(await peer.bytesOf(empty.uploadUrl!), new Uint8Array(0));
  });
});

Deno.test("a lazy file Blob whose file shrinks mid-upload fails at once as INVALID_ARGUMENT, not as SERVER after every retry", async () => {
  await withPeer(async (peer) => {
    const CHUNK = 4096;
    {
      const file: FakeFile = { bytes: bytes(CHUNK * 4) };
      const log: string[] = [];
      const client = createBaseClient(peer.url, "anon-key-123456", { fetch: bunFetch(log) });
      // A retry would wait at least 2.5 s: the time bound below tells one from three round trips
      // on a busy machine.
      const up = createResumableUpload(client, "b", "shrunk.bin", new LazyFile(file), {
        chunkSize: CHUNK,
        retryBaseDelayMs: 5_000,
      });
      // The file is cut to a chunk and a half once its first chunk is in.
      up.progress.subscribe((p) => {
        if (p.bytesUploaded >= CHUNK && file.bytes!.length > CHUNK * 1.5) {
          file.bytes = file.bytes!.subarray(0, CHUNK * 1.5);
        }
      });
      const t0 = performance.now();
      const r = await up.await();
      assert.equal(r.ok ? "done" : r.error.category, "INVALID_ARGUMENT", log.join(", "));
      assert.equal(
        r.errorOrNull()!.message,
        `Cannot upload as 'data' must hold its size of ${
          CHUNK * 4
        } bytes: the Blob reads short from byte ${CHUNK * 1.5} (its file shrank)`,
      );
      // The half chunk still there was taken, the next request sent nothing: no retry after it.
      assert.deepEqual(log, [`POST ${CHUNK}`, `PATCH ${CHUNK / 2}`, "PATCH 0"]);
      assert.ok(performance.now() - t0 < 2_000, `${performance.now() - t0} ms`);
    }
  });
});
