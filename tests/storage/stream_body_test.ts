// Firefox (153 ESR) does not send a ReadableStream request body: it takes it for some
// other value and sends its text, "[object ReadableStream]", as `text/plain`. A plain upload of a
// stream stored those 23 bytes and answered Success; a resumable upload with `streamChunks: true`
// sent them as each chunk, which the server accepted as 23 bytes, and crawled on storing the
// text over and over. tests/runtime/firefox_test.ts runs both in Firefox.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, createStorageClient } from "../../storage/mod.ts";
import { sendsStreamBodies } from "../../storage/_chunk_body.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, tusScript } from "../storage_tus/_tus_script.ts";

/** Runs `fn` with a `Request` that, as Firefox's, turns a stream body into its text. */
async function asGecko<T>(fn: () => Promise<T>): Promise<T> {
  const request = Object.getOwnPropertyDescriptor(globalThis, "Request")!;
  const Base = globalThis.Request;
  class GeckoRequest extends Base {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      if (init?.body instanceof ReadableStream) {
        const { duplex: _ignored, ...rest } = init as RequestInit & { duplex?: string };
        init = { ...rest, body: String(init.body) };
      }
      super(input, init);
    }
  }
  Object.defineProperty(globalThis, "Request", { value: GeckoRequest, configurable: true });
  try {
    return await fn();
  } finally {
    Object.defineProperty(globalThis, "Request", request);
  }
}

const streamOf = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });

Deno.test("sendsStreamBodies: false where a stream body gets the text's Content-Type, true in Deno", async () => {
  assert.equal(sendsStreamBodies(), true);
  assert.equal(await asGecko(() => Promise.resolve(sendsStreamBodies())), false);
});

Deno.test("a plain upload of a stream where the runtime sends it as text is refused, not stored as '[object ReadableStream]'", async () => {
  await asGecko(async () => {
    const rec = recordingFetch(() => jsonResponse({ Key: "b/p" }));
    const s = createStorageClient(createBaseClient(BASE, KEY, { fetch: rec.fetch }));
    for (
      const r of [
        await s.upload("b", "p", streamOf(new Uint8Array([1, 2, 3]))),
        await s.update("b", "p", streamOf(new Uint8Array([1, 2, 3]))),
        await s.uploadToSignedUrl("b", "p", "token", streamOf(new Uint8Array([1, 2, 3]))),
      ]
    ) {
      assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT");
      assert.equal(
        r.errorOrNull()!.message,
        `Cannot upload as 'data' must be bytes, a Blob or a string in this runtime, which sends a ReadableStream request body as the text "[object ReadableStream]" (Firefox; a resumable upload reads a stream in chunks): current value is a ReadableStream`,
      );
    }
    assert.equal(rec.requests.length, 0);
    // Bytes and a Blob still go.
    assert.ok((await s.upload("b", "p", new Uint8Array([1, 2, 3]))).ok);
    assert.ok((await s.upload("b", "p", new Blob([new Uint8Array([4, 5])]))).ok);
    assert.deepEqual(rec.requests.map((x) => [...x.bytes!]), [[1, 2, 3], [4, 5]]);
  });
});

Deno.test("a resumable upload with streamChunks: true where the runtime sends a stream as text throws; a stream source still goes as bytes", async () => {
  await asGecko(async () => {
    const rec = recordingFetch(tusScript());
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch });
    assert.throws(
      () =>
        createResumableUpload(client, "b", "p", new Uint8Array(10), {
          chunkSize: 4,
          streamChunks: true,
        }),
      {
        name: "TypeError",
        message:
          `Cannot upload with 'streamChunks' as this runtime sends a ReadableStream request body as the text "[object ReadableStream]" (Firefox)`,
      },
    );
    assert.equal(rec.requests.length, 0);
    const data = new Uint8Array(10).map((_, i) => i + 1);
    const r = await createResumableUpload(client, "b", "p", streamOf(data), {
      chunkSize: 4,
      size: 10,
    }).await();
    assert.ok(r.ok);
    assert.deepEqual(rec.requests.map((x) => x.streamed), [false, false, false]);
    assert.deepEqual(
      rec.requests.flatMap((x) => [...(x.bytes ?? [])]),
      [...data],
    );
  });
});
