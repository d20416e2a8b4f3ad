// A stream body goes to fetch through a pipe (stream_cut_test.ts). Fetch refuses a stream that is
// locked or already read or cancelled; a pipe reads a used stream as an empty one, so such a body
// went out as an empty upload that succeeded. A call whose stream body it cancelled (a 401, a 413)
// and that the caller repeats with the same stream is the plain way to meet it.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { serve } from "../support/serve.ts";

function bytes(n: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      c.enqueue(new Uint8Array(n));
      c.close();
    },
  });
}

async function send(stream: ReadableStream<Uint8Array>) {
  const sizes: number[] = [];
  await using server = await serve(async (req) => {
    sizes.push((await req.arrayBuffer()).byteLength);
    return Response.json({ ok: true });
  });
  const client = createBaseClient(server.url, "anon-key");
  const r = await client.request({ method: "POST", path: "/upload", body: stream });
  return { r, sizes };
}

Deno.test("a stream body already cancelled is refused as fetch refuses it, not sent empty", async () => {
  const stream = bytes(10);
  await stream.cancel();
  const { r, sizes } = await send(stream);
  assert.deepEqual(sizes, []);
  assert.equal(r.errorOrNull()?.category, "NETWORK");
  assert.match(r.errorOrNull()!.message, /^Network error: .*(disturbed|locked)/);
});

Deno.test("a stream body already read is refused, not sent empty", async () => {
  const stream = bytes(10);
  const reader = stream.getReader();
  await reader.read();
  reader.releaseLock();
  const { r, sizes } = await send(stream);
  assert.deepEqual(sizes, []);
  assert.equal(r.errorOrNull()?.category, "NETWORK");
});

Deno.test("a locked stream body is a NETWORK failure naming the lock, as fetch reports it", async () => {
  const stream = bytes(10);
  stream.getReader();
  const { r, sizes } = await send(stream);
  assert.deepEqual(sizes, []);
  assert.equal(r.errorOrNull()?.category, "NETWORK");
  assert.match(r.errorOrNull()!.message, /^Network error: .*locked/);
});

Deno.test("a stream body cancelled by a failed call cannot be sent again as an empty body", async () => {
  let calls = 0;
  const sizes: number[] = [];
  await using server = await serve(async (req) => {
    if (calls++ === 0) {
      return Response.json({ code: 401, msg: "no" }, { status: 401 });
    }
    sizes.push((await req.arrayBuffer()).byteLength);
    return Response.json({ ok: true });
  });
  const client = createBaseClient(server.url, "anon-key");
  const stream = bytes(10);
  const first = await client.request({ method: "POST", path: "/upload", body: stream });
  assert.equal(first.ok, false);
  // The failed call cancelled the stream (stream_cut_test.ts); give the cut its turns.
  for (let i = 0; i < 20 && stream.locked; i++) await new Promise((r) => setTimeout(r, 5));
  const again = await client.request({ method: "POST", path: "/upload", body: stream });
  assert.equal(again.ok, false, `the second call succeeded, the server got ${sizes} bytes`);
  assert.deepEqual(sizes, []);
});

Deno.test("a fresh empty stream body is still sent (empty), and a byte stream whole", async () => {
  const empty = await send(new ReadableStream({ start: (c) => c.close() }));
  assert.equal(empty.r.ok, true);
  assert.deepEqual(empty.sizes, [0]);
  const byteStream = new ReadableStream({
    type: "bytes",
    start(c) {
      c.enqueue(new Uint8Array(7));
      c.close();
    },
  });
  const whole = await send(byteStream);
  assert.equal(whole.r.ok, true);
  assert.deepEqual(whole.sizes, [7]);
});

Deno.test("a Blob's stream goes out whole where a Response given it locks it and gives its own body (Bun before 1.4.3)", async () => {
  const data = new Uint8Array(10).fill(7);
  const stream = new Blob([data]).stream();
  const received: Uint8Array[] = [];
  await using server = await serve(async (req) => {
    received.push(new Uint8Array(await req.arrayBuffer()));
    return Response.json({ ok: true });
  });
  const client = createBaseClient(server.url, "anon-key");
  const Native = globalThis.Response;
  // Bun 1.4.2 and before: `new Response(blob.stream())` locks that stream and reads the Blob
  // through a stream of its own, which its `body` is.
  globalThis.Response = class extends Native {
    constructor(body?: BodyInit | null, init?: ResponseInit) {
      const own = body === stream;
      if (own) stream.getReader();
      super(own ? new Blob([data]).stream() : body, init);
    }
  };
  try {
    const r = await client.request({ method: "POST", path: "/upload", body: stream });
    assert.equal(r.errorOrNull()?.message, undefined);
    assert.deepEqual(received, [data]);
  } finally {
    globalThis.Response = Native;
  }
});
