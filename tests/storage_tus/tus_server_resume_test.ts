/**
 * Resuming against a real TUS peer (@tus/server with @tus/file-store on a
 * loopback port), with faults injected by the client's own `fetch`: the URL
 * store's keys, deferred lengths declared on a resume, and the HEAD that must
 * come before a PATCH is sent again.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload, type UploadUrlStore } from "../../storage/mod.ts";
import { asStream as streamOf, bytes, withPeer } from "./_tus_peer.ts";

const CHUNK = 4096;

/** What a gateway answers when the peer's own answer was lost. */
const BAD_GATEWAY = () => new Response("bad gateway", { status: 502 });

function memoryStore() {
  const saved = new Map<string, string>();
  const store: UploadUrlStore = {
    get: (k) => saved.get(k),
    set: (k, v) => void saved.set(k, v),
    remove: (k) => void saved.delete(k),
  };
  return { saved, store };
}

type Hook = (
  req: Request,
  send: (req: Request) => Promise<Response>,
) => Promise<Response> | null;

/** A `fetch` to the peer that logs each request and lets `hook` answer or alter it. */
function faulty(hook: Hook) {
  const log: string[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const h = (name: string) => req.headers.get(name);
    log.push(`${req.method} off=${h("upload-offset")} len=${h("upload-length")}`);
    return await (hook(req, (r) => fetch(r)) ?? fetch(req));
  };
  return { fetchImpl, log };
}

Deno.test("a stream's URL store key stays the one it was saved under when a HEAD teaches the length: a finished upload is forgotten", async () => {
  await withPeer(async (peer) => {
    const data = bytes(CHUNK * 2 + 100, 7);
    // The final PATCH (it declares the length) reaches the peer, but its answer is lost.
    let lost = false;
    const { fetchImpl } = faulty((req, send) => {
      if (req.method !== "PATCH" || !req.headers.has("upload-length") || lost) return null;
      lost = true;
      return send(req).then(async (r) => {
        await r.body?.cancel();
        return BAD_GATEWAY();
      });
    });
    const { saved, store } = memoryStore();
    const client = createBaseClient(peer.url, "anon-key-123456", { fetch: fetchImpl });
    const up = createResumableUpload(client, "b", "s.bin", streamOf(data), {
      chunkSize: CHUNK,
      urlStore: store,
      retryBaseDelayMs: 1,
    });
    const r = await up.await();
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.ok(lost);
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
    assert.equal(saved.size, 0, `left in the store: ${[...saved.keys()].join()}`);
  });
});

Deno.test("other bytes of the same size for the same path do not resume an unfinished upload: the object is never a mix", async () => {
  await withPeer(async (peer) => {
    for (const kind of ["bytes", "Blob", "stream"] as const) {
      const v1 = bytes(CHUNK * 3, 11);
      const v2 = bytes(CHUNK * 3, 12);
      const as = (b: Uint8Array) =>
        kind === "bytes"
          ? b
          : kind === "Blob"
          ? new Blob([b as Uint8Array<ArrayBuffer>])
          : streamOf(b);
      const { saved, store } = memoryStore();
      // The first upload stops after its first chunk: its URL stays in the store.
      const { fetchImpl } = faulty((req) =>
        req.method === "PATCH" && req.headers.get("upload-offset") === String(CHUNK)
          ? Promise.resolve(new Response("refused", { status: 400 }))
          : null
      );
      const options = {
        chunkSize: CHUNK,
        urlStore: store,
        ...(kind === "stream" ? { size: v1.length } : {}),
      };
      const stopped = createResumableUpload(
        createBaseClient(peer.url, "anon-key-123456", { fetch: fetchImpl }),
        "b",
        `${kind}.bin`,
        as(v1),
        options,
      );
      assert.equal((await stopped.await()).ok, false);
      assert.equal(saved.size, 1, kind);
      const next = createResumableUpload(
        createBaseClient(peer.url, "anon-key-123456"),
        "b",
        `${kind}.bin`,
        as(v2),
        options,
      );
      const r = await next.await();
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.notEqual(next.uploadUrl, stopped.uploadUrl, `${kind}: a new upload`);
      assert.deepEqual(await peer.bytesOf(next.uploadUrl!), v2, kind);
      // The same bytes again do resume the first upload.
      const again = createResumableUpload(
        createBaseClient(peer.url, "anon-key-123456"),
        "b",
        `${kind}.bin`,
        as(v1),
        options,
      );
      assert.ok((await again.await()).ok, kind);
      assert.equal(again.uploadUrl, stopped.uploadUrl, `${kind}: resumed`);
      assert.deepEqual(await peer.bytesOf(again.uploadUrl!), v1, kind);
      assert.equal(saved.size, 0, kind);
    }
  });
});

Deno.test("a deferred-length upload resumed with data of known size declares the length: the peer completes it", async () => {
  await withPeer(async (peer) => {
    const data = bytes(CHUNK * 3 + 10, 21);
    const resumeWith = [
      ["bytes", () => data],
      ["Blob", () => new Blob([data as Uint8Array<ArrayBuffer>])],
      ["stream with size", () => streamOf(data)],
    ] as const;
    for (const [label, make] of resumeWith) {
      // A stream of unknown length, paused after its first chunk.
      const { fetchImpl } = faulty((req) =>
        req.method === "PATCH" ? Promise.resolve(new Response("later", { status: 400 })) : null
      );
      const first = createResumableUpload(
        createBaseClient(peer.url, "anon-key-123456", { fetch: fetchImpl }),
        "b",
        "deferred.bin",
        streamOf(data),
        { chunkSize: CHUNK },
      );
      assert.equal((await first.await()).ok, false);
      assert.equal((await peer.head(first.uploadUrl!)).deferred, "1");
      const { fetchImpl: logged, log } = faulty(() => null);
      const second = createResumableUpload(
        createBaseClient(peer.url, "anon-key-123456", { fetch: logged }),
        "b",
        "deferred.bin",
        make(),
        { chunkSize: CHUNK, uploadUrl: first.uploadUrl, size: data.length },
      );
      const r = await second.await();
      assert.ok(r.ok, `${label}: ${r.ok ? "" : r.error.message}`);
      assert.deepEqual(await peer.head(first.uploadUrl!), {
        offset: String(data.length),
        length: String(data.length),
        deferred: null,
      }, label);
      assert.deepEqual(await peer.bytesOf(first.uploadUrl!), data, label);
      assert.equal(log.filter((l) => l.includes(`len=${data.length}`)).length, 1, log.join("\n"));
    }
  });
});

Deno.test("after a failed PATCH, a failing HEAD is retried before any PATCH: a length the peer already took is not sent twice", async () => {
  await withPeer(async (peer) => {
    const data = bytes(CHUNK * 2 + 100, 31);
    let step = 0;
    const { fetchImpl, log } = faulty((req, send) => {
      // The final PATCH's headers reach the peer (it takes the length) but not its body, and
      // the client gets a 502; then the first HEAD fails with a 503.
      if (req.method === "PATCH" && req.headers.has("upload-length") && step === 0) {
        step = 1;
        const headers = new Headers(req.headers);
        return send(new Request(req.url, { method: "PATCH", headers, body: new Uint8Array(0) }))
          .then(async (r) => {
            await r.body?.cancel();
            return BAD_GATEWAY();
          });
      }
      if (req.method === "HEAD" && step === 1) {
        step = 2;
        return Promise.resolve(new Response(null, { status: 503 }));
      }
      return null;
    });
    const up = createResumableUpload(
      createBaseClient(peer.url, "anon-key-123456", { fetch: fetchImpl }),
      "b",
      "twice.bin",
      streamOf(data),
      { chunkSize: CHUNK, retryBaseDelayMs: 1 },
    );
    const r = await up.await();
    assert.ok(r.ok, `${r.ok ? "" : r.error.message}\n${log.join("\n")}`);
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
    const afterFault = log.slice(log.findIndex((l) => l.startsWith("HEAD")));
    assert.deepEqual(afterFault.map((l) => l.split(" ")[0]), ["HEAD", "HEAD", "PATCH"]);
    assert.match(afterFault[2], /len=null/, "the length is not declared again");
  });
});

Deno.test("an abort after the last PATCH was accepted changes nothing: success, and the URL store forgets the upload", async () => {
  await withPeer(async (peer) => {
    const data = bytes(CHUNK * 2 + 10, 41);
    const { saved, store } = memoryStore();
    const ac = new AbortController();
    const up = createResumableUpload(
      createBaseClient(peer.url, "anon-key-123456"),
      "b",
      "late-abort.bin",
      data,
      { chunkSize: CHUNK, urlStore: store },
    );
    up.progress.subscribe((p) => {
      if (p.isComplete) ac.abort(); // a listener that stops on completion
    });
    const r = await up.await({ signal: ac.signal });
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
    assert.equal(saved.size, 0);
  });
});

Deno.test("a HEAD that hides Upload-Length (a proxy, a CORS policy) is not read as a deferred length: the length is not declared twice", async () => {
  await withPeer(async (peer) => {
    const data = bytes(CHUNK * 3 + 10, 51);
    let lost = false;
    const { fetchImpl, log } = faulty((req, send) => {
      if (req.method === "HEAD") {
        return send(req).then((r) => {
          const headers = new Headers(r.headers);
          headers.delete("upload-length");
          return new Response(null, { status: r.status, headers });
        });
      }
      // The second PATCH reaches the peer but its answer is lost: a HEAD re-syncs.
      if (
        req.method === "PATCH" && req.headers.get("upload-offset") === String(CHUNK * 2) && !lost
      ) {
        lost = true;
        return send(req).then(async (r) => {
          await r.body?.cancel();
          return BAD_GATEWAY();
        });
      }
      return null;
    });
    const up = createResumableUpload(
      createBaseClient(peer.url, "anon-key-123456", { fetch: fetchImpl }),
      "b",
      "hidden-length.bin",
      data,
      { chunkSize: CHUNK, retryBaseDelayMs: 1 },
    );
    const r = await up.await();
    assert.ok(r.ok, `${r.ok ? "" : r.error.message}\n${log.join("\n")}`);
    assert.deepEqual(await peer.bytesOf(up.uploadUrl!), data);
    assert.ok(log.filter((l) => l.startsWith("PATCH")).every((l) => l.endsWith("len=null")));
  });
});
