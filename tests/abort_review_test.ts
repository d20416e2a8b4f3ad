// Found by a review of cancellation and cleanup: a streamed upload the server answers before
// reading it all (a 413, a 401) went on being sent after the call resolved its Failure, with the
// caller's stream locked and no signal able to stop it (fetch ignores an abort once the answer
// has come).
import assert from "node:assert/strict";
import { createBaseClient } from "../core/client.ts";
import { createStorageClient } from "../storage/client.ts";
import { createSignedRenderUrls } from "../storage/extensions.ts";
import { serve } from "./support/serve.ts";

/** An endless source counting its pulls, and whether it was cancelled. */
function endless() {
  const seen = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      seen.pulls++;
      await new Promise((r) => setTimeout(r, 1));
      c.enqueue(new Uint8Array(64 * 1024));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

Deno.test("a streamed upload answered early with an error stops sending once the call has failed", async () => {
  let received = 0;
  const draining = new Set<Promise<void>>();
  await using server = await serve((req) => {
    // Answers at once and reads on, as servers that drain a refused body do.
    const drain = (async () => {
      try {
        for await (const piece of req.body!) received += piece.length;
      } catch {
        // the client stopped sending
      }
    })();
    draining.add(drain);
    return new Response(JSON.stringify({ statusCode: "413", error: "too large", message: "big" }), {
      status: 413,
    });
  });
  const storage = createStorageClient(createBaseClient(server.url, "anon-key"));
  for (const method of ["upload", "update", "uploadToSignedUrl"] as const) {
    const { stream, seen } = endless();
    const r = method === "uploadToSignedUrl"
      ? await storage.uploadToSignedUrl("b", "a.bin", "signed-token", stream)
      : await storage[method]("b", "a.bin", stream);
    assert.equal(r.errorOrNull()?.category, "PAYLOAD_TOO_LARGE", method);
    // Bytes already sent may still arrive on a busy machine: wait until none has come for 200 ms
    // (at most 10 s: a client that goes on sending never gets there, and fails below).
    for (let last = -1, i = 0; i < 50 && received !== last; i++) {
      last = received;
      await new Promise((r) => setTimeout(r, 200));
    }
    const [pulls, bytes] = [seen.pulls, received];
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(seen.cancelled, true, `${method}: the caller's stream is cancelled`);
    assert.equal(seen.pulls, pulls, `${method}: nothing more is read`);
    assert.equal(received, bytes, `${method}: nothing more reaches the server`);
  }
  await Promise.all(draining);
});

Deno.test("a streamed upload with an already aborted signal sends nothing and cancels the stream, as fetch does", async () => {
  let sent = 0;
  const storage = createStorageClient(createBaseClient("https://p.example", "anon-key", {
    fetch: () => {
      sent++;
      return Promise.reject(new TypeError("unreachable"));
    },
  }));
  const { stream, seen } = endless();
  const r = await storage.upload("b", "a.bin", stream, { signal: AbortSignal.abort() });
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(sent, 0);
  assert.equal(seen.cancelled, true);
});

Deno.test("a streamed upload that succeeds sends every byte through the pipe", async () => {
  await using server = await serve(async (req) => {
    const bytes = new Uint8Array(await req.arrayBuffer());
    return Response.json({ Key: `b/${bytes.length}/${bytes[0]}-${bytes.at(-1)}` });
  });
  const storage = createStorageClient(createBaseClient(server.url, "anon-key"));
  let n = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (n === 3) return c.close();
      c.enqueue(new Uint8Array(1000).fill(++n));
    },
  });
  const r = await storage.upload("b", "a.bin", stream);
  assert.ok(r.ok);
  assert.equal(r.value, "b/3000/1-3");
});

Deno.test("createSignedRenderUrls signs path after path under one deadline: the call's timeout bounds them all", async () => {
  let calls = 0;
  const slow = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    calls++;
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (init?.signal?.aborted) throw init.signal.reason;
    return Response.json({ signedURL: "/render/image/sign/b/a.png?token=t" });
  }) as typeof fetch;
  const storage = createStorageClient(createBaseClient("https://p.example", "k", { fetch: slow }));
  const paths = Array.from({ length: 10 }, (_, i) => `${i}.png`);
  const started = Date.now();
  const r = await createSignedRenderUrls(storage, "b", paths, 60, { width: 8 }, { timeout: 500 });
  assert.equal(r.errorOrNull()?.category, "TIMEOUT");
  // 500 ms and a request at most; each path with its own 500 ms would take 2 s.
  assert.ok(Date.now() - started < 1_200, "no more than the timeout, give or take a request");
  assert.ok(calls < paths.length, "the paths left when time ran out are not asked for");
  // Within its timeout the whole list is signed.
  const all = await createSignedRenderUrls(storage, "b", paths, 60, { width: 8 }, {
    timeout: 5000,
  });
  assert.equal(all.getOrThrow().length, paths.length);
  await new Promise((resolve) => setTimeout(resolve, 250)); // the last timer of the cut call
});
