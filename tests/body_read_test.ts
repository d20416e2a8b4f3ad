// How every response body is read, against real local servers that misbehave after their
// headers: a body that drips or stalls (the call's timeout and the caller's signal still end it,
// and the connection is closed, not left open), a connection dropped mid-body (an error, never a
// silent short read), and a gzip body far larger decoded than sent (the caps count decoded bytes
// and stop reading there, never reading the whole body first). Found by that review:
// downloadStream's contentLength was an encoded answer's Content-Length, shorter than the decoded
// stream it came with.
import assert from "node:assert/strict";
import { createClient } from "../client.ts";
import { createBaseClient } from "../core/client.ts";
import type { ServiceResult } from "../core/result.ts";
import { requestJwks } from "../auth/jwks.ts";
import { MAX_ERROR_BODY_BYTES } from "../core/transport.ts";
import { pause, type RawExchange, rawServer } from "./support/raw_server.ts";
import { serve } from "./support/serve.ts";

const KEY = "anon-key-body-123456";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXNlY3JldA";

/** Headers promising a long body, then a byte pair every 20 ms until the client goes away. */
async function drip(x: RawExchange, status: number, closed: Set<string>): Promise<void> {
  const name = new URLSearchParams(/\?(\S*)/.exec(x.head)?.[1]).get("case") ?? "?";
  await x.write(
    `HTTP/1.1 ${status} Status\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n[`,
  );
  while (!x.signal.aborted) {
    if (!(await x.write("1,"))) return void closed.add(name);
    await pause(20, x.signal);
  }
}

/** Each kind of call that reads a body, by name; the name goes in the query, for the server. */
function calls(url: string, options: { timeout?: number; signal?: AbortSignal }) {
  const call = (name: string) => {
    const fetchNamed: typeof fetch = (input, init) => {
      const u = new URL(String(input));
      u.searchParams.set("case", name);
      return fetch(u, init);
    };
    const config = { retry: { maxAttempts: 1 }, fetch: fetchNamed };
    return { client: createClient(url, KEY, config), base: createBaseClient(url, KEY, config) };
  };
  const raw = (name: string, responseType: "json" | "text" | "bytes", maxBodyBytes?: number) =>
    call(name).base.request({ path: "/raw", responseType, maxBodyBytes, ...options });
  const ops: Record<string, (name: string) => Promise<ServiceResult<unknown>>> = {
    "json": (n) => raw(n, "json"),
    "json, capped": (n) => raw(n, "json", 1 << 20),
    "text": (n) => raw(n, "text"),
    "bytes": (n) => raw(n, "bytes"),
    "bytes, capped": (n) => raw(n, "bytes", 1 << 20),
    "auth.getUser": (n) => call(n).client.auth.getUser(TOKEN, options),
    "auth.requestJwks": (n) => requestJwks(call(n).base, options),
    "database.select": (n) => call(n).client.database.select("todos", options),
    "storage.list": (n) => call(n).client.storage.list("b", options),
    "storage.move (no body read)": (n) => call(n).client.storage.move("b", "x", "y", options),
    "storage.download": (n) => call(n).client.storage.download("b", "a.txt", options),
    "storage.downloadBytes": (n) => call(n).client.storage.downloadBytes("b", "a.bin", options),
  };
  return Object.entries(ops).map(([name, op]) => [name, () => op(name)] as const);
}

/** Waits until every name has its connection closed (at most `ms`). */
async function allClosed(closed: Set<string>, names: string[], ms: number): Promise<string[]> {
  for (let waited = 0; waited < ms && names.some((n) => !closed.has(n)); waited += 20) {
    await pause(20);
  }
  return names.filter((n) => !closed.has(n));
}

for (const status of [200, 500]) {
  Deno.test(`a ${status} body that drips after its headers ends in TIMEOUT for every kind of call, and its connection is closed`, async () => {
    const closed = new Set<string>();
    await using server = rawServer((x) => drip(x, status, closed));
    const started = Date.now();
    const outcomes = await Promise.all(
      calls(server.url, { timeout: 200 }).map(async ([name, call]) => {
        const r = await call();
        return [name, r, Date.now() - started] as const;
      }),
    );
    for (const [name, r, took] of outcomes) {
      const e = r.errorOrNull();
      if (status === 200 && name.includes("no body read")) assert.equal(e, null, name);
      else assert.equal(e?.category, "TIMEOUT", `${name}: ${e?.message}`);
      assert.ok(took < 1500, `${name}: ended after ${took} ms`);
    }
    const open = await allClosed(closed, outcomes.map(([n]) => n), 1500);
    assert.deepEqual(open, [], "every connection is closed");
  });

  Deno.test(`a ${status} body that drips after its headers ends in CANCELLED when the caller aborts, and its connection is closed`, async () => {
    const closed = new Set<string>();
    await using server = rawServer((x) => drip(x, status, closed));
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 200);
    const started = Date.now();
    // timeout 0: only the signal can end the call.
    const outcomes = await Promise.all(
      calls(server.url, { timeout: 0, signal: ac.signal }).map(async ([name, call]) => {
        const r = await call();
        return [name, r, Date.now() - started] as const;
      }),
    );
    clearTimeout(timer);
    for (const [name, r, took] of outcomes) {
      const e = r.errorOrNull();
      if (status === 200 && name.includes("no body read")) assert.equal(e, null, name);
      else assert.equal(e?.category, "CANCELLED", `${name}: ${e?.message}`);
      assert.ok(took < 1500, `${name}: ended after ${took} ms`);
    }
    const open = await allClosed(closed, outcomes.map(([n]) => n), 1500);
    assert.deepEqual(open, [], "every connection is closed");
  });
}

Deno.test("a downloaded stream whose body drips is cut by the caller's signal after the call returned: the read fails, the connection is closed", async () => {
  const closed = new Set<string>();
  await using server = rawServer((x) => drip(x, 200, closed));
  const storage = createClient(server.url, KEY).storage;
  const ac = new AbortController();
  const r = await storage.downloadStream("b", "a.bin", { signal: ac.signal, timeout: 100 });
  const reader = r.getOrThrow().stream.getReader();
  // The call's timeout ended with the headers: the stream is the caller's now.
  await pause(300);
  assert.equal((await reader.read()).done, false);
  setTimeout(() => ac.abort(new Error("stop")), 50);
  const started = Date.now();
  // Bounded: a stream the abort did not cut would drip on until the server closes.
  await assert.rejects(async () => {
    while (Date.now() - started < 2000 && !(await reader.read()).done);
  }, /stop/);
  assert.ok(Date.now() - started < 1000);
  assert.deepEqual(await allClosed(closed, ["?"], 1000), [], "the connection is closed");
});

/** Sends `length` bytes of a promised `total` (chunked when `total` is null), then drops. */
function dropAfter(length: number, total: number | null) {
  return async (x: RawExchange) => {
    const framing = total === null ? "transfer-encoding: chunked" : `content-length: ${total}`;
    await x.write(
      `HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\n${framing}\r\n\r\n`,
    );
    const piece = new Uint8Array(length).fill(97);
    await x.write(total === null ? `${length.toString(16)}\r\n` : "");
    await x.write(piece);
    await x.write(total === null ? "\r\n" : "");
    await pause(50);
    x.close();
  };
}

Deno.test("a connection dropped mid-body is an error, never a short read: downloadStream's stream fails, a whole-body download is NETWORK", async () => {
  for (const total of [100_000, null]) {
    await using server = rawServer(dropAfter(30_000, total));
    const client = createClient(server.url, KEY, { retry: { maxAttempts: 1 } });
    const r = await client.storage.downloadStream("b", "a.bin");
    let read = 0;
    await assert.rejects(async () => {
      for await (const piece of r.getOrThrow().stream) read += piece.length;
    }, TypeError);
    assert.ok(read <= 30_000, `framing ${total ?? "chunked"}: read ${read}`);
    for (
      const whole of [client.storage.downloadBytes("b", "a"), client.storage.download("b", "a")]
    ) {
      assert.equal(
        (await whole).errorOrNull()?.category,
        "NETWORK",
        `framing ${total ?? "chunked"}`,
      );
    }
  }
});

/** A gzip body of `mib` MiB of zeros (about 1 KiB sent per MiB). */
async function gzipBomb(mib: number): Promise<Uint8Array<ArrayBuffer>> {
  const zeros = new Uint8Array(1 << 20);
  const source = new ReadableStream<BufferSource>({
    pull(c) {
      if (mib-- === 0) c.close();
      else c.enqueue(zeros);
    },
  });
  return new Uint8Array(
    await new Response(source.pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
  );
}

Deno.test("a gzip body larger decoded than every cap is stopped at the cap counted in decoded bytes, not read whole", async () => {
  const bomb = await gzipBomb(64);
  assert.ok(bomb.length < 256 * 1024);
  let status = 200;
  await using server = await serve(() =>
    new Response(bomb, {
      status,
      headers: { "content-encoding": "gzip", "content-type": "application/json" },
    })
  );
  // A fetch that counts the decoded bytes the library reads.
  let decoded = 0;
  const counting = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    const counted = response.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(piece, c) {
          decoded += piece.length;
          c.enqueue(piece);
        },
      }),
    );
    return new Response(counted, response);
  };
  const options = { fetch: counting, retry: { maxAttempts: 1 } };
  const client = createClient(server.url, KEY, options);
  const base = createBaseClient(server.url, KEY, options);
  const cases: Array<[string, number, number, () => Promise<ServiceResult<unknown>>]> = [
    ["auth.getUser (8 MiB)", 200, 8 << 20, () => client.auth.getUser(TOKEN)],
    ["auth.requestJwks (64 KiB)", 200, 64 << 10, () => requestJwks(base)],
    [
      "a 500's error body (1 MiB)",
      500,
      MAX_ERROR_BODY_BYTES,
      () => client.database.select("todos"),
    ],
    [
      "a 404's error body (1 MiB)",
      404,
      MAX_ERROR_BODY_BYTES,
      () => client.storage.download("b", "a"),
    ],
  ];
  for (const [name, answer, cap, call] of cases) {
    status = answer;
    decoded = 0;
    const r = await call();
    const e = r.errorOrNull();
    assert.ok(e, name);
    if (answer === 200) {
      assert.equal(e.category, "DECODE", name);
      assert.match(e.message, new RegExp(`exceeds ${cap} bytes`), name);
    } else {
      assert.equal(e.status, answer, name);
      assert.match(e.message, /…$/, `${name}: shown as cut`);
    }
    // A runtime hands decoded bytes over in pieces of a few KiB: at most one piece past the cap.
    assert.ok(decoded >= cap && decoded <= cap + (256 << 10), `${name}: ${decoded} bytes read`);
  }
});

Deno.test("a body with a lying Content-Length is a clear Failure: shorter is cut JSON (DECODE), longer is a stall the timeout ends", async () => {
  const body = `{"access_token":"${TOKEN}","user":{"id":"u1"}}`;
  let length = 0;
  await using server = rawServer(async (x) => {
    await x.write(
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n${body}`,
    );
    await pause(2000, x.signal);
  });
  const auth = createClient(server.url, KEY, { retry: { maxAttempts: 1 } }).auth;
  length = 30;
  const short = await auth.getUser(TOKEN, { timeout: 1000 });
  assert.equal(short.errorOrNull()?.category, "DECODE");
  assert.ok(!String(short.errorOrNull()?.message).includes(TOKEN.slice(0, 30)));
  length = body.length + 100;
  const long = await auth.getUser(TOKEN, { timeout: 200 });
  assert.equal(long.errorOrNull()?.category, "TIMEOUT");
});

Deno.test("a 2xx body with a UTF-8 BOM is read as its JSON; an error body with one keeps its message", async () => {
  let status = 200;
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  const json = (v: unknown) =>
    new Uint8Array([...bom, ...new TextEncoder().encode(JSON.stringify(v))]);
  await using server = await serve(() =>
    new Response(
      status === 200 ? json([{ name: "a.txt", id: "1" }]) : json({ message: "Bucket not found" }),
      { status, headers: { "content-type": "application/json" } },
    )
  );
  const client = createClient(server.url, KEY, { retry: { maxAttempts: 1 } });
  const base = createBaseClient(server.url, KEY);
  // The uncapped read (fetch's text) and the capped one (the library's decoder) agree.
  for (const maxBodyBytes of [undefined, 1000]) {
    const r = await base.request({ path: "/x", maxBodyBytes });
    assert.deepEqual(r.getOrThrow().body, [{ name: "a.txt", id: "1" }]);
  }
  assert.equal((await client.storage.list("b")).getOrThrow()[0].name, "a.txt");
  status = 404;
  const missing = await client.storage.list("b");
  assert.equal(missing.errorOrNull()?.message, "Bucket not found");
  assert.equal(missing.errorOrNull()?.category, "NOT_FOUND");
});

Deno.test("downloadStream's contentLength is the stream's length or null: an encoded answer's Content-Length counts the bytes before the runtime decodes them", async () => {
  const text = "lorem ipsum dolor sit amet ".repeat(4000);
  const gzip = new Uint8Array(
    await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  let encoding: string | null = "gzip";
  await using server = await serve(() =>
    new Response(encoding === "gzip" ? gzip : text, {
      headers: {
        "content-type": "text/plain",
        ...(encoding ? { "content-encoding": encoding } : {}),
      },
    })
  );
  const storage = createClient(server.url, KEY).storage;
  for (const coding of ["gzip", "identity", null]) {
    encoding = coding;
    const d = (await storage.downloadStream("b", "a.txt")).getOrThrow();
    const read = (await new Response(d.stream).arrayBuffer()).byteLength;
    assert.equal(read, text.length, `${coding}: the stream is the decoded object`);
    assert.equal(d.contentLength, coding === "gzip" ? null : text.length, `${coding}`);
  }
});
