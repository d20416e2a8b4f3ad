// The Storage API's S3 backend (the hosted service's) cannot run an upload's finish step twice
// (found by a review of its source): once @tus/s3-store has completed the multipart upload, a
// PATCH at the end fails in `S3Store.write` (ListParts answers NoSuchUpload), a 500. With upsert,
// an upload whose completing answer was lost met only that 500 (without upsert the object check
// answers 409 first) and failed although the object was stored. The upload URL names the version
// the finish step stores (`generateUrl`: base64url of `bucket/path/version`), which the object's
// info then carries.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/mod.ts";

const BASE = "https://project.example.com";
const VERSION = "0b6c2d6e-6f0a-4f55-9a3c-6c1f5b7e2a10";
const FAST = { retryBaseDelayMs: 1, retryMaxDelayMs: 2 };

/** The Storage API's upload URL for `id` (`bucket/path/version`), as its `generateUrl` forms it. */
const uploadUrl = (id: string) =>
  `${BASE}/storage/v1/upload/resumable/${
    btoa(id).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
  }`;

/** @tus/server's answer to an error of the S3 store (no status of its own): a 500. */
const s3Refusal = () =>
  new Response(
    "Something went wrong with that request\nThe specified multipart upload does not exist.\n",
    { status: 500, headers: { "content-type": "text/plain;charset=UTF-8" } },
  );

/**
 * A Storage API on S3 holding `total` bytes of an upload at `url`: the PATCH that completes it
 * stores the object (`version`) but its answer is lost when `loseFinalAnswer`; any PATCH after
 * that gets the S3 store's 500. The object's info names `infoVersion`.
 */
function storageOnS3(
  url: string,
  total: number,
  o: { held?: number; loseFinalAnswer?: boolean; replayFinal?: boolean; infoVersion?: string } = {},
) {
  const log: string[] = [];
  const infoModes: string[] = [];
  let held = o.held ?? 0;
  let complete = held === total;
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const headers = new Headers(init.headers);
    const path = new URL(String(input)).pathname;
    const body = init.body == null ? 0 : (await new Response(init.body).arrayBuffer()).byteLength;
    log.push(
      `${method} ${path === new URL(url).pathname ? "upload" : path}${
        method === "PATCH" ? `@${headers.get("upload-offset")}+${body}` : ""
      }${method === "GET" ? ` ${headers.get("authorization")}` : ""}`,
    );
    const tus = { "tus-resumable": "1.0.0" };
    if (method === "POST") {
      return new Response(null, { status: 201, headers: { ...tus, location: url } });
    }
    if (method === "HEAD") {
      return new Response(null, {
        status: 200,
        headers: { ...tus, "upload-offset": String(held), "upload-length": String(total) },
      });
    }
    if (method === "GET") {
      infoModes.push(init.cache ?? "default");
      if (!complete) {
        return Response.json({ statusCode: "404", error: "not_found" }, { status: 400 });
      }
      return Response.json({ name: "a.bin", bucket_id: "b", version: o.infoVersion ?? VERSION });
    }
    if (complete) return s3Refusal();
    held = Number(headers.get("upload-offset")) + body;
    if (held === total) {
      complete = true;
      if (o.loseFinalAnswer) throw new TypeError("connection reset");
      // The runtime sent it again on a new connection: the object check refuses the copy.
      if (o.replayFinal) return objectExists();
    }
    return new Response(null, { status: 204, headers: { ...tus, "upload-offset": String(held) } });
  };
  return { fetch: fetch as typeof globalThis.fetch, log, infoModes };
}

/** The Storage API's TUS answer (seen on the wire) when the object exists and upsert is off. */
const objectExists = () =>
  new Response("The resource already exists", {
    status: 409,
    headers: { "content-type": "text/plain;charset=UTF-8", "tus-resumable": "1.0.0" },
  });

const client = (fetch: typeof globalThis.fetch) =>
  createBaseClient(BASE, "anon-key", { fetch, accessToken: "user-jwt" });

Deno.test("an upsert whose last answer was lost, on the S3 backend: Success once the object's info names this upload's version", async () => {
  const url = uploadUrl(`b/a.bin/${VERSION}`);
  const s = storageOnS3(url, 8, { loseFinalAnswer: true });
  const up = createResumableUpload(client(s.fetch), "b", "a.bin", new Uint8Array(8), {
    upsert: true,
    chunkSize: 4,
    creationWithUpload: false,
    ...FAST,
  });
  const seen: Array<[number, boolean, number]> = [];
  up.progress.subscribe((p) => seen.push([p.bytesUploaded, p.isComplete, s.log.length]));
  const r = await up.await();
  assert.equal(r.ok, true, r.ok ? "" : r.error.message);
  assert.deepEqual(s.log, [
    "POST /storage/v1/upload/resumable",
    "PATCH upload@0+4",
    "PATCH upload@4+4", // stored the object; its answer was lost
    "HEAD upload",
    "PATCH upload@8+0", // the finish step again: the S3 store's 500
    "GET /storage/v1/object/info/authenticated/b/a.bin Bearer user-jwt",
  ]);
  assert.equal(up.progress.value.isComplete, true);
  // Complete only once the finish step was accepted: after the lost answer, the HEAD's 8 of 8
  // counts as 7 until the object's info confirms the upload.
  const complete = seen.filter(([, done]) => done);
  assert.equal(complete.length, 1);
  assert.equal(complete[0][2], s.log.length, "complete only after the last request");
  assert.ok(seen.some(([bytes, done]) => bytes === 7 && !done), JSON.stringify(seen));
  // Revalidated: a browser's cached info of this path would name an earlier upload's version.
  assert.deepEqual(s.infoModes, ["no-cache"]);
});

Deno.test("a resume of a finished upsert on the S3 backend: the version decides, in either form of the upload id", async () => {
  for (const id of [`b/a.bin/${VERSION}`, `b/a.bin-$v-${VERSION}`]) {
    const s = storageOnS3(uploadUrl(id), 10, { held: 10 });
    const r = await createResumableUpload(client(s.fetch), "b", "a.bin", new Uint8Array(10), {
      upsert: true,
      uploadUrl: uploadUrl(id),
      ...FAST,
    }).await();
    assert.equal(r.ok, true, id);
    assert.equal(s.log.length, 3, s.log.join(", "));
  }
  // Another version (another upload's object, or a finish step that never stored this one) is
  // no Success: the 500 stays the Failure, after every attempt.
  const s = storageOnS3(uploadUrl(`b/a.bin/${VERSION}`), 10, { held: 10, infoVersion: "other" });
  const r = await createResumableUpload(client(s.fetch), "b", "a.bin", new Uint8Array(10), {
    upsert: true,
    uploadUrl: uploadUrl(`b/a.bin/${VERSION}`),
    ...FAST,
  }).await();
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.category, "SERVER");
  assert.equal(s.log.filter((l) => l.startsWith("PATCH")).length, 5);
  assert.equal(s.log.filter((l) => l.startsWith("GET")).length, 5);
});

Deno.test("an upload URL that names no version of this object (another TUS server, another path) sends no info request", async () => {
  for (const id of ["u1", `b/other.bin/${VERSION}`, "b/a.bin/", `b/a.bin/x/${VERSION}`]) {
    const url = id === "u1" ? `${BASE}/storage/v1/upload/resumable/u1` : uploadUrl(id);
    const s = storageOnS3(url, 10, { held: 10 });
    const r = await createResumableUpload(client(s.fetch), "b", "a.bin", new Uint8Array(10), {
      upsert: true,
      uploadUrl: url,
      maxAttempts: 2,
      ...FAST,
    }).await();
    assert.equal(r.ok, false, id);
    assert.deepEqual(s.log.filter((l) => l.startsWith("GET")), [], id);
  }
});

Deno.test("a refusal of the finish step (4xx) fails at once, with no info request", async () => {
  const url = uploadUrl(`b/a.bin/${VERSION}`);
  const log: string[] = [];
  const fetch = ((_input: RequestInfo | URL, init: RequestInit = {}) => {
    log.push(init.method ?? "GET");
    if (init.method === "HEAD") {
      return Promise.resolve(
        new Response(null, { headers: { "upload-offset": "10", "upload-length": "10" } }),
      );
    }
    return Promise.resolve(
      new Response("new row violates row-level security policy", { status: 403 }),
    );
  }) as typeof globalThis.fetch;
  const up = createResumableUpload(client(fetch), "b", "a.bin", new Uint8Array(10), {
    upsert: true,
    uploadUrl: url,
    ...FAST,
  });
  const seen: string[] = [];
  up.progress.subscribe((p) => seen.push(`${p.bytesUploaded}/${p.totalBytes} ${p.isComplete}`));
  const r = await up.await();
  assert.equal(!r.ok && r.error.status, 403);
  assert.deepEqual(log, ["HEAD", "PATCH"]);
  // Every byte is on the server but the upload never finished: its last byte is not counted, and
  // the upload never said it was complete.
  assert.equal(up.progress.value.isComplete, false);
  assert.equal(up.progress.value.bytesUploaded, 9);
  assert.ok(seen.every((p) => p.endsWith("false")), seen.join());
});

// Seen against the Storage API on S3 (through a proxy that closed the connection instead of
// answering the completing PATCH): Deno's fetch sent that PATCH again by itself on a new connection
// (it replays a byte body whose reused connection closed without an answer), and the server
// refused the copy with 409 as the object, this upload's own, existed. Without upsert that 409
// was taken for another upload's object: Failure(CONFLICT) for an upload that had succeeded.
Deno.test("a completing PATCH refused with 409 as the object exists: Success when the object carries this upload's version", async () => {
  const url = uploadUrl(`b/a.bin/${VERSION}`);
  const s = storageOnS3(url, 8, { replayFinal: true });
  const saved = new Map<string, string>();
  const up = createResumableUpload(client(s.fetch), "b", "a.bin", new Uint8Array(8), {
    chunkSize: 4,
    creationWithUpload: false,
    urlStore: {
      get: (k) => saved.get(k),
      set: (k, v) => void saved.set(k, v),
      remove: (k) => void saved.delete(k),
    },
    ...FAST,
  });
  const r = await up.await();
  assert.equal(r.ok, true, r.ok ? "" : r.error.message);
  assert.deepEqual(s.log, [
    "POST /storage/v1/upload/resumable",
    "PATCH upload@0+4",
    "PATCH upload@4+4", // stored the object, answered 409 (the replay's answer)
    "GET /storage/v1/object/info/authenticated/b/a.bin Bearer user-jwt",
  ]);
  assert.equal(up.progress.value.isComplete, true);
  assert.equal(saved.size, 0);
  // Another version: another upload wrote the object, CONFLICT as before (and no retry).
  const other = storageOnS3(url, 8, { replayFinal: true, infoVersion: "other" });
  const taken = await createResumableUpload(client(other.fetch), "b", "a.bin", new Uint8Array(8), {
    chunkSize: 4,
    creationWithUpload: false,
    ...FAST,
  }).await();
  assert.equal(!taken.ok && taken.error.category, "CONFLICT");
  assert.equal(!taken.ok && taken.error.status, 409);
  assert.equal(other.log.length, 4, other.log.join(", "));
  // A 409 to a PATCH that does not complete the upload asks nothing: the object is not this one's.
  let n = 0;
  const early = ((input: RequestInfo | URL, init: RequestInit = {}) => {
    n++;
    if (init.method === "POST") {
      return Promise.resolve(
        new Response(null, { status: 201, headers: { "tus-resumable": "1.0.0", location: url } }),
      );
    }
    assert.notEqual(init.method ?? "GET", "GET", String(input));
    return Promise.resolve(objectExists());
  }) as typeof globalThis.fetch;
  const firstChunk = await createResumableUpload(client(early), "b", "a.bin", new Uint8Array(8), {
    chunkSize: 4,
    creationWithUpload: false,
    ...FAST,
  }).await();
  assert.equal(!firstChunk.ok && firstChunk.error.category, "CONFLICT");
  assert.equal(n, 2);
});

Deno.test("an empty upload resumed from its URL never reports a negative byte count", async () => {
  const url = uploadUrl(`b/empty.bin/${VERSION}`);
  const fetch = ((_input: RequestInfo | URL, init: RequestInit = {}) => {
    const tus = { "tus-resumable": "1.0.0", "upload-offset": "0" };
    return Promise.resolve(
      init.method === "HEAD"
        ? new Response(null, { headers: { ...tus, "upload-length": "0" } })
        : new Response(null, { status: 204, headers: tus }),
    );
  }) as typeof globalThis.fetch;
  const up = createResumableUpload(client(fetch), "b", "empty.bin", new Uint8Array(0), {
    uploadUrl: url,
    ...FAST,
  });
  const seen: number[] = [];
  up.progress.subscribe((p) => seen.push(p.bytesUploaded));
  await up.await();
  assert.ok(seen.every((b) => b >= 0), seen.join());
});
