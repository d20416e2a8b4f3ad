// A URL store or a stream that misbehaves (never answers, fails, throws a value that is no
// Error, yields another typed array): the upload resolves a clear result, never hangs or rejects.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type UploadUrlStore } from "../../storage/mod.ts";
import FakeTimers from "@sinonjs/fake-timers";
import { recordingFetch } from "../support/recording_fetch.ts";
import { BASE, KEY, tusScript } from "./_tus_script.ts";

const never = () => new Promise<never>(() => {});
const bytes = new Uint8Array([1, 2, 3, 4, 5]);

function upload(store: Partial<UploadUrlStore>, signal?: AbortSignal, data = bytes) {
  const rec = recordingFetch(tusScript());
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  const full: UploadUrlStore = {
    get: () => null,
    set: () => {},
    remove: () => {},
    ...store,
  };
  const u = createResumableUpload(client, "b", "p.bin", data, { chunkSize: 2, urlStore: full });
  return { rec, result: u.await({ signal }), u };
}

Deno.test("a URL store that never answers get, set or remove: an abort ends the upload as CANCELLED", async () => {
  for (const stuck of ["get", "set"] as const) {
    const controller = new AbortController();
    const { result } = upload({ [stuck]: never }, controller.signal);
    setTimeout(() => controller.abort(), 20);
    const r = await result;
    assert.equal(r.errorOrNull()?.category, "CANCELLED", stuck);
  }
  // remove on a dead saved upload (404), before a new one is created
  const controller = new AbortController();
  const rec = recordingFetch((req) =>
    req.method === "HEAD" ? new Response(null, { status: 404 }) : tusScript()(req)
  );
  const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
  const result = createResumableUpload(client, "b", "p.bin", bytes, {
    urlStore: {
      get: () => `${BASE}/storage/v1/upload/resumable/old`,
      set: () => {},
      remove: never,
    },
  }).await({ signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  assert.equal((await result).errorOrNull()?.category, "CANCELLED");
});

Deno.test("the URL store is best effort: a failing set or remove does not fail an upload whose bytes all went in", async () => {
  const failing = () => Promise.reject(new Error("kv down"));
  for (const store of [{ set: failing }, { remove: failing }, { set: failing, remove: failing }]) {
    const { rec, result, u } = upload(store);
    const r = await result;
    assert.ok(r.ok, JSON.stringify(Object.keys(store)));
    assert.equal(u.progress.value.isComplete, true);
    assert.ok(rec.requests.some((x) => x.method === "PATCH"));
  }
  // A get that cannot answer fails the upload (it might have resumed), with a clear message.
  const { result } = upload({ get: failing });
  const r = await result;
  assert.equal(r.errorOrNull()?.category, "UNKNOWN");
  assert.match(r.errorOrNull()?.message ?? "", /kv down/);
});

Deno.test("a thrown value that is no Error and cannot become a string is still a Failure", async () => {
  const { result } = upload({
    get: () => {
      throw Object.create(null);
    },
  });
  const r = await result;
  assert.equal(r.errorOrNull()?.category, "UNKNOWN");
  assert.match(r.errorOrNull()?.message ?? "", /^Resumable upload failed: /);
});

Deno.test("a stream that yields another typed array than Uint8Array is INVALID_ARGUMENT, not silently cut to bytes: first, or later where the end-of-stream check reads it", async () => {
  const cases: Array<[string, ArrayBufferView[], number]> = [
    ["first piece", [new Uint16Array([0x0102, 0x0304])], 0],
    ["second piece", [new Uint8Array([1, 2, 3, 4]), new Uint16Array([0x0102, 0x0304])], 1],
  ];
  for (const [label, pieces, requests] of cases) {
    const stream = new ReadableStream({
      start(c) {
        for (const piece of pieces) c.enqueue(piece);
        c.close();
      },
    }) as unknown as ReadableStream<Uint8Array>;
    const rec = recordingFetch(tusScript());
    const client = createBaseClient(BASE, KEY, { fetch: rec.fetch, retry: { maxAttempts: 1 } });
    const r = await createResumableUpload(client, "b", "p.bin", stream, { chunkSize: 4 }).await();
    assert.equal(r.errorOrNull()?.category, "INVALID_ARGUMENT", label);
    assert.match(r.errorOrNull()?.message ?? "", /yielded a Uint16Array, not a Uint8Array/, label);
    assert.ok(rec.requests.length <= requests, label);
  }
});

Deno.test("a URL store set that answers only after the upload has finished is followed by another remove: no finished upload stays to be resumed", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const saved = new Map<string, string>();
    let asked!: () => void;
    const askedFirst = new Promise<void>((resolve) => (asked = resolve));
    const store: UploadUrlStore = {
      get: (k) => {
        asked(); // the key is computed (WebCrypto, real time) before the first get
        return saved.get(k) ?? null;
      },
      // Answers after 11 s: past the upload's 10 s wait, so the upload goes on without it.
      set: (k, v) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            saved.set(k, v);
            resolve();
          }, 11_000)
        ),
      remove: (k) => void saved.delete(k),
    };
    const rec = recordingFetch(tusScript());
    const client = createBaseClient(BASE, KEY, {
      fetch: rec.fetch,
      retry: { maxAttempts: 1 },
      timeout: 0,
    });
    const u = createResumableUpload(client, "b", "p.bin", bytes, { chunkSize: 2, urlStore: store });
    const result = u.await();
    await askedFirst;
    await clock.tickAsync(10_000);
    assert.ok((await result).ok);
    assert.equal(saved.size, 0);
    await clock.tickAsync(2_000); // the late set lands, and the remove after it
    assert.equal(saved.size, 0, [...saved].join());
  } finally {
    clock.uninstall();
  }
});
