// Values made in another realm: an iframe, a `node:vm` context, or a test environment such as
// Vitest's jsdom, which swaps `Uint8Array` and `Blob` and leaves Node's `TextEncoder`, WebCrypto
// and fetch (tests/runtime/node_test.ts runs the package there). Such a value is no `instanceof`
// this realm's class, yet fetch and WebCrypto take it: generatePkceParams threw on WebCrypto's own
// digest there, and uploads refused an ArrayBuffer or a Blob of Node's. A Blob of another
// implementation (jsdom's has no `stream()`, and Node's fetch cannot send it) is read first.
import assert from "node:assert/strict";
import vm from "node:vm";
import { createBaseClient } from "../core/client.ts";
import { encodeBase64, encodeHex } from "../core/encoding.ts";
import { timingSafeEqual } from "../core/crypto.ts";
import { isArrayBuffer, isReadableStream, isUint8Array, localBytes } from "../core/_realm.ts";
import { generatePkceParams } from "../auth/pkce.ts";
import { createResumableUpload, createStorageClient } from "../storage/mod.ts";
import { createDatabaseClient } from "../database/client.ts";
import { column } from "../database/column.ts";
import { jsonResponse, recordingFetch } from "./support/recording_fetch.ts";
import { asStream, bytes, withPeer } from "./storage_tus/_tus_peer.ts";

const BASE = "https://project.example.com";
const KEY = "anon-key-0123456789";

/** Runs `code` in a fresh realm and returns its value. */
const foreign = <T>(code: string): T => vm.runInNewContext(code) as T;
const foreignBytes = (...b: number[]): Uint8Array => foreign(`new Uint8Array([${b.join(",")}])`);
const foreignBuffer = (...b: number[]): ArrayBuffer =>
  foreign(`new Uint8Array([${b.join(",")}]).buffer`);

/**
 * A Blob of another implementation, as jsdom's: it says it is a Blob and reads, but is no
 * `instanceof Blob` here and has no `stream()`.
 */
class OtherBlob {
  readonly #bytes: Uint8Array;
  readonly type: string;
  /** What `arrayBuffer` answers instead, for faults. */
  read?: (() => Promise<unknown>) | undefined;
  constructor(bytes: Uint8Array, type = "") {
    this.#bytes = bytes;
    this.type = type;
  }
  get size(): number {
    return this.#bytes.length;
  }
  get [Symbol.toStringTag](): string {
    return "Blob";
  }
  slice(start = 0, end = this.size): OtherBlob {
    const b = new OtherBlob(this.#bytes.slice(start, end), this.type);
    b.read = this.read;
    return b;
  }
  arrayBuffer(): Promise<unknown> {
    return this.read ? this.read() : Promise.resolve(this.#copy());
  }
  #copy(): ArrayBuffer {
    // Answered in another realm, as jsdom's Blob answers with its own ArrayBuffer.
    const out = foreign<ArrayBuffer>(`new ArrayBuffer(${this.#bytes.length})`);
    new Uint8Array(out).set(this.#bytes);
    return out;
  }
}

Deno.test("realm checks: values of another realm are taken, values that only claim a type are not", () => {
  const u8 = foreignBytes(1, 2);
  assert.equal(u8 instanceof Uint8Array, false, "the premise: another realm's Uint8Array");
  assert.equal(isUint8Array(u8), true);
  assert.equal(isUint8Array(foreign("new Uint16Array(2)")), false);
  const spoofed = new Uint16Array(2);
  Object.defineProperty(spoofed, Symbol.toStringTag, { value: "Uint8Array" });
  assert.equal(isUint8Array(spoofed), false);
  assert.equal(isUint8Array({ [Symbol.toStringTag]: "Uint8Array", length: 1 }), false);

  assert.equal(isArrayBuffer(foreignBuffer(1)), true);
  assert.equal(isArrayBuffer(new ArrayBuffer(1)), true);
  assert.equal(isArrayBuffer({ [Symbol.toStringTag]: "ArrayBuffer", byteLength: 4 }), false);
  assert.equal(isArrayBuffer(new SharedArrayBuffer(1)), false);
  assert.equal(isArrayBuffer(null), false);

  assert.equal(isReadableStream(new ReadableStream()), true);
  assert.equal(isReadableStream({ [Symbol.toStringTag]: "ReadableStream", getReader() {} }), false);

  // A value the checks read a property of first (to spare most values the brand check's throw)
  // may run a caller's getter or proxy trap: one that throws answers false, never a throw.
  const hostile = new Proxy({}, {
    get() {
      throw new Error("trap");
    },
  });
  const throwing = Object.defineProperties({}, {
    byteLength: {
      get: () => {
        throw new Error("getter");
      },
    },
    getReader: {
      get: () => {
        throw new Error("getter");
      },
    },
  });
  for (const v of [hostile, throwing]) {
    assert.equal(isArrayBuffer(v), false);
    assert.equal(isReadableStream(v), false);
  }
  assert.equal(isArrayBuffer(u8), false, "a view of another realm is no ArrayBuffer");
  assert.equal(isArrayBuffer(new Blob(["a"])), false);
  assert.equal(isReadableStream(new Blob(["a"])), false);
  assert.equal(isReadableStream(new Uint8Array(1)), false);

  const view = localBytes(u8)!;
  assert.equal(view instanceof Uint8Array, true);
  assert.deepEqual([...view], [1, 2]);
  view[0] = 9;
  assert.equal(u8[0], 9, "the same memory, not a copy");
  assert.deepEqual([...localBytes(foreignBuffer(7))!], [7]);
  assert.equal(localBytes("ab"), null);
});

Deno.test("encoders and timingSafeEqual take bytes of another realm", () => {
  assert.equal(encodeBase64(foreignBuffer(0xfb, 0xff)), "+/8=");
  assert.equal(encodeBase64(foreignBytes(0x66, 0x6f)), "Zm8=");
  assert.equal(encodeHex(foreignBytes(1, 171)), "01ab");
  assert.equal(timingSafeEqual(foreignBytes(1, 2), new Uint8Array([1, 2])), true);
  assert.equal(timingSafeEqual(foreignBytes(1, 2), new Uint8Array([1, 3])), false);
});

Deno.test("generatePkceParams takes a custom SHA-256 answering another realm's bytes (a Buffer of Node's under jsdom)", async () => {
  let given: Uint8Array | null = null;
  const p = await generatePkceParams({
    sha256: async (input) => {
      given = input;
      const d = new Uint8Array(await crypto.subtle.digest("SHA-256", input as BufferSource));
      return foreignBytes(...d);
    },
  });
  assert.ok(given);
  const expected = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(p.codeVerifier)),
  );
  assert.equal(
    p.codeChallenge,
    encodeBase64(expected).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"),
  );
  // Still 32 bytes, whatever the realm.
  await assert.rejects(
    generatePkceParams({ sha256: () => Promise.resolve(foreignBytes(1, 2)) }),
    /must return 32 bytes: current value is 2 bytes/,
  );
});

Deno.test("plain uploads send bytes and ArrayBuffers of another realm as they are", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  for (
    const r of [
      await s.upload("b", "p", foreignBuffer(1, 2, 3)),
      await s.update("b", "p", foreignBytes(1, 2, 3)),
      await s.uploadToSignedUrl("b", "p", "token", foreignBuffer(1, 2, 3)),
    ]
  ) assert.equal(r.ok ? "ok" : r.error.message, "ok");
  assert.deepEqual(rec.requests.map((q) => [...q.bytes!]), [[1, 2, 3], [1, 2, 3], [1, 2, 3]]);
  // What only claims to be an ArrayBuffer is still refused.
  const fake = await s.upload("b", "p", { [Symbol.toStringTag]: "ArrayBuffer" } as never);
  assert.equal(fake.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(rec.requests.length, 3);
});

Deno.test("a plain upload of a Blob of another implementation sends its bytes with its type", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const blob = new OtherBlob(new Uint8Array([104, 105]), "text/plain") as unknown as Blob;
  assert.equal(blob instanceof Blob, false);
  for (
    const r of [
      await s.upload("b", "p", blob),
      await s.update("b", "p", blob, { contentType: "text/x-given" }),
      await s.uploadToSignedUrl("b", "p", "token", blob),
    ]
  ) assert.equal(r.ok ? "ok" : r.error.message, "ok");
  assert.deepEqual(rec.requests.map((q) => q.text), ["hi", "hi", "hi"]);
  assert.deepEqual(rec.requests.map((q) => q.headers.get("content-type")), [
    "text/plain",
    "text/x-given",
    "text/plain",
  ]);
  assert.equal(rec.requests.some((q) => q.streamed), false);
});

Deno.test("a Blob of another implementation that fails, reads short or never answers ends the upload with a Failure and sends nothing", async () => {
  const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
  const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const failing = new OtherBlob(new Uint8Array(4));
  const boom = new Error("NotReadableError");
  failing.read = () => Promise.reject(boom);
  const r1 = await s.upload("b", "p", failing as unknown as Blob);
  assert.equal(r1.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.equal(r1.errorOrNull()?.message, "Cannot upload as reading the Blob 'data' failed");
  assert.equal(r1.errorOrNull()?.cause, boom);

  const short = new OtherBlob(new Uint8Array(4));
  short.read = () => Promise.resolve(new ArrayBuffer(3));
  const r2 = await s.upload("b", "p", short as unknown as Blob);
  assert.equal(
    r2.errorOrNull()?.message,
    "Cannot upload as the Blob 'data' gave 3 bytes where its size is 4",
  );
  const notBytes = new OtherBlob(new Uint8Array(4));
  notBytes.read = () => Promise.resolve("four");
  const r3 = await s.upload("b", "p", notBytes as unknown as Blob);
  assert.equal(r3.errorOrNull()?.message, "Cannot upload as reading the Blob 'data' failed");

  const hanging = new OtherBlob(new Uint8Array(4));
  hanging.read = () => new Promise(() => {});
  const controller = new AbortController();
  const pending = s.upload("b", "p", hanging as unknown as Blob, { signal: controller.signal });
  controller.abort();
  assert.equal((await pending).errorOrNull()?.category, "CANCELLED");
  const timed = await s.upload("b", "p", hanging as unknown as Blob, { timeout: 20 });
  assert.equal(timed.errorOrNull()?.category, "TIMEOUT");
  assert.equal(timed.errorOrNull()?.message, "Request timed out after 20 ms");
  assert.equal(rec.requests.length, 0);
});

Deno.test("resumable uploads take bytes and Blobs of another realm or implementation, and streams yielding another realm's bytes", async () => {
  await withPeer(async (peer) => {
    const data = bytes(3 * 4096 + 77);
    const client = createBaseClient(peer.url, KEY);
    const fromForeign = foreign<Uint8Array>(`new Uint8Array(${data.length})`);
    fromForeign.set(data);
    const otherBlob = new OtherBlob(data, "image/png") as unknown as Blob;
    // A stream of this realm whose pieces come from another (an iframe's reader, or jsdom's).
    let i = 0;
    const foreignPieces = new ReadableStream<Uint8Array>({
      pull(c) {
        if (i >= data.length) return c.close();
        const piece = foreign<Uint8Array>(`new Uint8Array(${Math.min(1000, data.length - i)})`);
        piece.set(data.subarray(i, i + piece.length));
        i += piece.length;
        c.enqueue(piece);
      },
    });
    for (
      const [label, source] of [
        ["another realm's Uint8Array", fromForeign],
        ["a Blob of another implementation", otherBlob],
        ["a stream of another realm's pieces", foreignPieces],
        ["this realm's stream (control)", asStream(data)],
      ] as const
    ) {
      const up = createResumableUpload(client, "b", `r/${label}.bin`, source, { chunkSize: 4096 });
      const r = await up.await();
      assert.equal(r.ok ? "ok" : r.error.message, "ok", label);
      assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data, label);
    }
  });
});

Deno.test("a resumable upload of a Blob of another implementation sends bytes read from it, with its type, and refuses a Blob that reads short", async () => {
  const sent: Array<{ metadata: string; body: string }> = [];
  const client = createBaseClient(BASE, KEY, {
    fetch: async (input, init) => {
      sent.push({
        metadata: new Headers(init?.headers).get("upload-metadata") ?? "",
        body: Object.prototype.toString.call(init?.body),
      });
      const length = (await new Request(input, init).arrayBuffer()).byteLength;
      return new Response(null, {
        status: 201,
        headers: {
          location: `${BASE}/storage/v1/upload/resumable/x`,
          "upload-offset": `${length}`,
        },
      });
    },
  });
  const blob = new OtherBlob(new Uint8Array([1, 2]), "image/png") as unknown as Blob;
  const r = await createResumableUpload(client, "b", "p.png", blob).await();
  assert.equal(r.ok ? "ok" : r.error.message, "ok");
  // The chunk goes as bytes read from the Blob, never as the Blob (Node's fetch cannot send
  // jsdom's), and the object's type is the Blob's.
  assert.deepEqual(sent.map((s) => s.body), ["[object Uint8Array]"]);
  const contentType = sent[0].metadata.split(",").map((kv) => kv.split(" "))
    .find(([k]) => k === "contentType");
  assert.equal(atob(contentType![1]), "image/png");

  const short = new OtherBlob(new Uint8Array(10));
  short.read = () => Promise.resolve(new ArrayBuffer(4));
  const r2 = await createResumableUpload(client, "b", "s.bin", short as unknown as Blob).await();
  assert.equal(r2.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(r2.errorOrNull()!.message, /the Blob reads 4 bytes where 10 were expected/);
  assert.equal(sent.length, 1, "nothing sent for the short Blob");
});

Deno.test("database call headers given as any iterable of pairs (a Headers of another realm, a Map) are sent, not dropped", async () => {
  const rec = recordingFetch(() => jsonResponse([]));
  const db = createDatabaseClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const r = await db.select("t", {
    headers: new Map([["x-trace", "abc"]]) as unknown as Record<string, string>,
  });
  assert.equal(r.ok ? "ok" : r.error.message, "ok");
  assert.equal(rec.only.headers.get("x-trace"), "abc");
});

Deno.test("a filter on another realm's Date sends its ISO time, as for this realm's, not its quoted JSON", async () => {
  const rec = recordingFetch(() => jsonResponse([]));
  const db = createDatabaseClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
  const at = foreign<Date>(`new Date(Date.UTC(2026, 10, 28, 12, 30))`);
  assert.equal(at instanceof Date, false);
  const r = await db.select("t", {
    block: (q) => q.where((w) => w.greaterEq(column<Date>("at"), at)),
  });
  assert.equal(r.ok ? "ok" : r.error.message, "ok");
  assert.equal(rec.only.url.searchParams.get("at"), "gte.2026-11-28T12:30:00.000Z");
  const bad = await db.select("t", {
    block: (q) => q.where((w) => w.greaterEq(column<Date>("at"), foreign<Date>(`new Date(NaN)`))),
  });
  assert.equal(bad.errorOrNull()?.category, "INVALID_ARGUMENT");
  assert.match(bad.errorOrNull()!.message, /the date is invalid/);
});
