// workerd logs a console warning for every `Response.text()` of a body whose `Content-Type` is not
// text ("Called .text() on an HTTP body which does not appear to be text. The body's Content-Type
// is "application/octet-stream". The result will probably be corrupted."): a string uploaded
// without a type is stored as `application/octet-stream`, and every `download` of it (text) logged
// that warning in a Worker (tests/runtime/workers_flows_test.ts found it in workerd's log). Text
// downloads now read bytes and decode them as `text()` does. The fake below warns as workerd does.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";

/** A fetch answering `body` with `type`, whose answers' `text()` warns as workerd's does. */
function workerdLike(body: Uint8Array<ArrayBuffer>, type: string) {
  const warnings: string[] = [];
  const fetch = (_input: RequestInfo | URL, _init?: RequestInit): Promise<Response> => {
    const res = new Response(body, { headers: { "content-type": type } });
    const text = res.text.bind(res);
    res.text = () => {
      const t = res.headers.get("content-type") ?? "";
      if (!/^text\/|json|xml|javascript|urlencoded/.test(t)) {
        warnings.push(`Called .text() on an HTTP body which does not appear to be text: ${t}`);
      }
      return text();
    };
    return Promise.resolve(res);
  };
  return { fetch, warnings };
}

Deno.test("a text download of an object stored as application/octet-stream calls no Response.text() (workerd warns for it)", async () => {
  // A BOM and multi-byte characters: decoded as Response.text() decodes them.
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("héllo ✓")]);
  const expected = await new Response(bytes.slice()).text();
  const { fetch, warnings } = workerdLike(bytes, "application/octet-stream");
  const storage = createStorageClient(createBaseClient("http://backend.test", "key", { fetch }));
  for (
    const r of [await storage.download("b", "a.txt"), await storage.downloadPublic("b", "a.txt")]
  ) {
    assert.equal(r.getOrNull(), expected);
  }
  assert.equal(expected, "héllo ✓");
  assert.deepEqual(warnings, []);
});

// Response.text() puts U+FFFD in place of each byte sequence that is not UTF-8: an image read with
// `download` came back as text that had lost its bytes, and no error said so.
Deno.test("a text download of bytes that are not UTF-8 is DECODE, pointing to downloadBytes; the bytes download is whole", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0]);
  for (const bytes of [png, new TextEncoder().encode("a line cut in é").slice(0, -1)]) {
    const { fetch } = workerdLike(bytes, "image/png");
    const storage = createStorageClient(createBaseClient("http://backend.test", "key", { fetch }));
    for (
      const [r, method] of [
        [await storage.download("b", "a.png"), "downloadBytes"],
        [await storage.downloadPublic("b", "a.png"), "downloadPublicBytes"],
      ] as const
    ) {
      assert.equal(r.ok, false);
      assert.equal(r.errorOrNull()!.category, "DECODE");
      assert.equal(r.errorOrNull()!.status, 200);
      assert.match(r.errorOrNull()!.message, new RegExp(`not UTF-8: use ${method} `));
    }
    assert.deepEqual((await storage.downloadBytes("b", "a.png")).getOrThrow(), bytes);
  }
});

// A range may cut a character at either end: the whole characters within it come back, not a
// DECODE (nor U+FFFD at the edges, as before).
Deno.test("a text download of a range that cuts characters gives the whole characters within it", async () => {
  const full = new TextEncoder().encode("日本語のテキスト"); // three bytes each
  const answer = (start: number, end: number) =>
    new Response(full.slice(start, end + 1), {
      status: 206,
      headers: {
        "content-range": `bytes ${start}-${end}/${full.length}`,
        "content-type": "text/plain",
      },
    });
  let next: [number, number] = [0, 0];
  const fetch = () => Promise.resolve(answer(...next));
  const storage = createStorageClient(createBaseClient("http://backend.test", "key", { fetch }));
  for (
    const [start, end, text] of [
      [0, 9, "日本語"], // ends inside the fourth
      [1, 11, "本語の"], // starts inside the first
      [2, 8, "本語"], // inside at both ends
      [3, 5, "本"],
      [1, 1, ""],
    ] as const
  ) {
    next = [start, end];
    assert.equal(
      (await storage.download("b", "a.txt", { range: { start, end } })).getOrThrow(),
      text,
      `${start}-${end}`,
    );
  }
  // Bytes that are no UTF-8 inside the range still are DECODE, the public hint naming its method.
  const bad = (_: unknown) =>
    Promise.resolve(
      new Response(new Uint8Array([0x61, 0xff, 0x62]), {
        status: 206,
        headers: { "content-range": "bytes 0-2/3" },
      }),
    );
  const pub = createStorageClient(createBaseClient("http://backend.test", "key", { fetch: bad }));
  const r = await pub.downloadPublic("b", "a.bin", { range: { start: 0, end: 2 } });
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.match(r.errorOrNull()!.message, /use downloadPublicBytes \(or downloadStream\)/);
});

// From the mutation review: the edges of the range decoding.
Deno.test("a ranged text download drops at most three leading continuation bytes, only from a 206 past byte 0", async () => {
  const range206 = (bytes: number[], start: number, total: number) => () =>
    Promise.resolve(
      new Response(new Uint8Array(bytes), {
        status: 206,
        headers: { "content-range": `bytes ${start}-${start + bytes.length - 1}/${total}` },
      }),
    );
  const client = (fetch: () => Promise<Response>) =>
    createStorageClient(createBaseClient("http://backend.test", "key", { fetch }));
  // From byte 0 nothing is dropped: a leading continuation byte there is no UTF-8.
  const r0 = await client(range206([0x80, 0x61, 0x62], 0, 3)).download("b", "a", {
    range: { start: 0, end: 2 },
  });
  assert.equal(r0.errorOrNull()?.category, "DECODE");
  assert.equal(r0.errorOrNull()?.status, 206);
  // A four-byte character cut after its first byte leaves three continuation bytes.
  const r1 = await client(range206([0x9f, 0x98, 0x80, 0x61], 1, 5)).download("b", "a", {
    range: { start: 1, end: 4 },
  });
  assert.equal(r1.getOrThrow(), "a");
  // Four are no character's tail.
  const r2 = await client(range206([0x80, 0x80, 0x80, 0x80, 0x61], 1, 6)).download("b", "a", {
    range: { start: 1, end: 5 },
  });
  assert.equal(r2.errorOrNull()?.category, "DECODE");
  // A whole answer to a range from 0 ends where the object ends: a cut last character is no UTF-8.
  const whole = () =>
    Promise.resolve(new Response(new Uint8Array([0x61, 0x62, 0x63, 0xc3]), { status: 200 }));
  const r3 = await client(whole).download("b", "a", { range: { start: 0, end: 20 } });
  assert.equal(r3.errorOrNull()?.category, "DECODE");
  // A 206 to a download that asked no range (a proxy's) is decoded whole.
  const r4 = await client(range206([0x61, 0x62], 0, 2)).download("b", "a");
  assert.equal(r4.getOrThrow(), "ab");
});

// A range answered whole is judged by the bytes received, as for `downloadBytes` (a text download
// used to need a `Content-Length` for it, and refused an answer without one).
Deno.test("a text download of a range answered whole: refused unless it is all the range asked", async () => {
  const { fetch } = workerdLike(new TextEncoder().encode("0123456789"), "text/plain");
  const storage = createStorageClient(createBaseClient("http://backend.test", "key", { fetch }));
  const r = await storage.download("b", "a.txt", { range: { start: 2, end: 4 } });
  assert.equal(r.ok, false);
  assert.equal(r.ok ? null : r.error.category, "DECODE");
  const whole = await storage.download("b", "a.txt", { range: { start: 0, end: 20 } });
  assert.equal(whole.getOrNull(), "0123456789");
});
