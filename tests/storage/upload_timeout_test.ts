// A plain upload had no timeout unless the call gave one: a server that took the body and never
// answered held the call forever (found by a new-user review). One of known length now gets the
// client's timeout plus 1 s per 16 KiB; a stream, whose length has no bound, still gets none.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";

/** A server that reads each upload's body whole, then never answers until the test ends. */
function silentServer() {
  const stop = new AbortController();
  const hung: Array<() => void> = [];
  let bodies = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (req) => {
      await req.arrayBuffer();
      bodies++;
      return await new Promise<Response>((resolve) =>
        hung.push(() => resolve(new Response("late", { status: 500 })))
      );
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    bodies: () => bodies,
    async close() {
      for (const h of hung) h();
      stop.abort();
      await server.finished;
    },
  };
}

Deno.test("a plain upload to a server that never answers is TIMEOUT after the client's timeout and its length's allowance", async () => {
  const srv = silentServer();
  try {
    const storage = createStorageClient(createBaseClient(srv.url, "key", { timeout: 300 }));
    for (
      const [data, allowance] of [
        ["hello", 1], // 15 bytes at most: 1 ms more
        [new Uint8Array(16 * 1024), 1000],
        [new Blob([new Uint8Array(24 * 1024)]), 1500],
      ] as const
    ) {
      const started = performance.now();
      // The signal only keeps a regression from hanging the suite: it ends the call as CANCELLED.
      const r = await storage.upload("b", "a.bin", data, { signal: AbortSignal.timeout(8000) });
      const took = performance.now() - started;
      assert.equal(r.errorOrNull()?.category, "TIMEOUT", String(allowance));
      assert.match(r.errorOrNull()!.message, new RegExp(`after ${300 + allowance} ms`));
      assert.ok(took >= 300 + allowance - 5, `${took} ms`);
    }
    // A signed upload gets the same allowance; a call's own timeout wins.
    const signed = await storage.uploadToSignedUrl("b", "a.bin", "tok", "hi", {
      signal: AbortSignal.timeout(8000),
    });
    assert.equal(signed.errorOrNull()?.category, "TIMEOUT");
    assert.match(signed.errorOrNull()!.message, /after 301 ms/);
    const own = await storage.update("b", "a.bin", "x", { timeout: 50 });
    assert.match(own.errorOrNull()!.message, /after 50 ms/);
    assert.equal(srv.bodies(), 5);
  } finally {
    await srv.close();
  }
});

Deno.test("a plain upload of a stream, or with the client's timeout 0, keeps no timeout: it waits for a late answer", async () => {
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (req) => {
      await req.arrayBuffer();
      await new Promise((r) => setTimeout(r, 250));
      return Response.json({ Key: "b/a.bin" });
    },
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const stream = createStorageClient(createBaseClient(url, "key", { timeout: 100 }));
    assert.equal(
      (await stream.upload("b", "a.bin", new Blob(["abc"]).stream())).getOrNull(),
      "b/a.bin",
    );
    const none = createStorageClient(createBaseClient(url, "key", { timeout: 0 }));
    assert.equal((await none.upload("b", "a.bin", "abc")).getOrNull(), "b/a.bin");
    // A call's own 0 is none too, whatever the client's.
    assert.equal(
      (await stream.upload("b", "a.bin", "abc", { timeout: 0 })).getOrNull(),
      "b/a.bin",
    );
    // The same bytes, not a stream, under the 100 ms client: cut at 101 ms.
    const cut = await stream.upload("b", "a.bin", "abc");
    assert.match(cut.errorOrNull()!.message, /after 101 ms/);
  } finally {
    stop.abort();
    await server.finished;
  }
});

// From the mutation review: a string counts three bytes a character, an empty body and an
// ArrayBuffer get the allowance too, and a call's own 0 is no timeout.
Deno.test("the upload allowance counts a string's characters thrice, empty bodies and ArrayBuffers too", async () => {
  const srv = silentServer();
  try {
    const storage = createStorageClient(createBaseClient(srv.url, "key", { timeout: 300 }));
    for (
      const [data, allowance] of [
        ["abcdef", 2], // 18 bytes at most
        ["", 0],
        [new Uint8Array(0), 0],
        [new ArrayBuffer(16_385), 1001],
      ] as const
    ) {
      const r = await storage.upload("b", "a.bin", data, { signal: AbortSignal.timeout(8000) });
      assert.equal(r.errorOrNull()?.category, "TIMEOUT", String(allowance));
      assert.match(r.errorOrNull()!.message, new RegExp(`after ${300 + allowance} ms`));
    }
  } finally {
    await srv.close();
  }
});
