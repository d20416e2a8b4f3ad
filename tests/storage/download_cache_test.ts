// A browser keeps a download's answer in its HTTP cache for the `max-age` the Storage API serves
// the object with (its upload's `cacheControl`), even for a request with an `Authorization`
// header, and answers the next fetch of the URL from it: in Chromium, Firefox and WebKit a
// download after an `update` returned the old bytes (tests/runtime/browser/flows.ts). Deno, Node,
// Bun and workerd have no such cache, so only a fake that caches as a browser does shows it here.
// Downloads now fetch with `cache: "no-cache"` (revalidate first), where the runtime takes it.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient } from "../../storage/mod.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { freshReads } from "../../storage/_fresh_reads.ts";

const BASE = "http://backend.test";

/**
 * A fetch with a browser's private HTTP cache in front of `server`: a 200 answer to a GET with a
 * positive `max-age` is kept by URL (and `Range`), and a later GET in the default cache mode is
 * answered from it while fresh, without a request; `no-cache` revalidates (`If-None-Match`, a
 * 304 answers the stored body), `no-store` and `reload` go to the server. `sent` counts what
 * reached the server.
 */
function browserCache(server: (req: Request) => Response | Promise<Response>) {
  const stored = new Map<string, { body: Uint8Array; headers: Headers; until: number }>();
  const modes: string[] = [];
  let sent = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const mode = (init?.cache as string | undefined) ?? "default";
    if (req.method !== "GET") {
      sent++;
      return await server(req);
    }
    modes.push(mode);
    const key = `${req.url} ${req.headers.get("range") ?? ""}`;
    const hit = stored.get(key);
    const answer = (h: NonNullable<typeof hit>) =>
      new Response(h.body.slice(), { status: 200, headers: h.headers });
    if (hit && mode === "default" && hit.until > Date.now()) return answer(hit);
    if (hit && mode === "no-cache" && hit.headers.has("etag")) {
      req.headers.set("if-none-match", hit.headers.get("etag")!);
    }
    sent++;
    const res = await server(req);
    if (res.status === 304 && hit) return answer(hit);
    const age = /max-age=(\d+)/.exec(res.headers.get("cache-control") ?? "")?.[1];
    if (res.status !== 200 || mode === "no-store" || !age || Number(age) === 0) return res;
    const body = new Uint8Array(await res.arrayBuffer());
    stored.set(key, { body, headers: res.headers, until: Date.now() + Number(age) * 1000 });
    return answer(stored.get(key)!);
  };
  return { fetch, modes, sent: () => sent };
}

async function signedIn() {
  const backend = await createLocalBackend();
  const cache = browserCache((req) => backend.app.fetch(req));
  const signup = await backend.app.fetch(
    new Request(`${BASE}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: backend.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "cache@example.test", password: "secret-pw" }),
    }),
  );
  const { access_token } = await signup.json();
  const client = createBaseClient(BASE, backend.apiKey, {
    fetch: cache.fetch,
    accessToken: access_token,
  });
  const storage = createStorageClient(client);
  assert.ok((await storage.createBucket("b", "b")).ok);
  return { storage, cache, client };
}

Deno.test("a download after an update gets the new object where fetch answers from a browser's HTTP cache", async () => {
  const { storage, cache } = await signedIn();
  assert.ok((await storage.upload("b", "a.txt", "first", { cacheControl: 3600 })).ok);
  assert.equal((await storage.download("b", "a.txt")).getOrNull(), "first");
  assert.ok((await storage.update("b", "a.txt", "second", { cacheControl: 3600 })).ok);
  assert.equal((await storage.download("b", "a.txt")).getOrNull(), "second");
  assert.deepEqual(
    new TextDecoder().decode((await storage.downloadBytes("b", "a.txt")).getOrNull()!),
    "second",
  );
  const stream = await storage.downloadStream("b", "a.txt");
  assert.equal(await new Response(stream.getOrNull()!.stream).text(), "second");
  const range = await storage.downloadBytes("b", "a.txt", { range: { start: 1, end: 3 } });
  assert.equal(new TextDecoder().decode(range.getOrNull()!), "eco");
  // Every download asked to revalidate.
  assert.ok(cache.modes.length >= 5);
  assert.ok(cache.modes.every((m) => m === "no-cache"), cache.modes.join());
});

Deno.test("a public download after an update gets the new object too", async () => {
  const { storage } = await signedIn();
  assert.ok((await storage.createBucket("pub", "pub", { public: true })).ok);
  assert.ok((await storage.upload("pub", "a.txt", "first", { cacheControl: 3600 })).ok);
  assert.equal((await storage.downloadPublic("pub", "a.txt")).getOrNull(), "first");
  assert.ok((await storage.update("pub", "a.txt", "second", { cacheControl: 3600 })).ok);
  assert.equal((await storage.downloadPublic("pub", "a.txt")).getOrNull(), "second");
});

Deno.test("info and exists after an update or a delete see the object as it is now, not a browser's cached answer", async () => {
  const { storage, cache } = await signedIn();
  assert.ok((await storage.createBucket("pub", "pub", { public: true })).ok);
  for (const bucket of ["b", "pub"]) {
    assert.ok((await storage.upload(bucket, "a.txt", "first", { cacheControl: 3600 })).ok);
  }
  assert.equal((await storage.info("b", "a.txt")).getOrThrow().size, 5);
  assert.equal((await storage.infoPublic("pub", "a.txt")).getOrThrow().size, 5);
  assert.equal((await storage.exists("b", "a.txt")).getOrThrow(), true);
  assert.equal((await storage.existsPublic("pub", "a.txt")).getOrThrow(), true);
  for (const bucket of ["b", "pub"]) {
    assert.ok((await storage.update(bucket, "a.txt", "second!", { cacheControl: 3600 })).ok);
  }
  assert.equal((await storage.info("b", "a.txt")).getOrThrow().size, 7);
  assert.equal((await storage.infoPublic("pub", "a.txt")).getOrThrow().size, 7);
  for (const bucket of ["b", "pub"]) {
    assert.ok((await storage.deleteObjects(bucket, ["a.txt"])).ok);
  }
  assert.equal((await storage.exists("b", "a.txt")).getOrThrow(), false);
  assert.equal((await storage.existsPublic("pub", "a.txt")).getOrThrow(), false);
  assert.equal(cache.modes.length, 8);
  assert.ok(cache.modes.every((m) => m === "no-cache"), cache.modes.join());
});

Deno.test("freshReads: the client itself where Request refuses cache: no-cache (workerd), and fetch called unbound", async () => {
  const client = createBaseClient(BASE, "k");
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "Request")!;
  const Base = globalThis.Request;
  class WorkerdRequest extends Base {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      if (init?.cache !== undefined) {
        throw new TypeError("The 'cache' field on 'RequestInitializerDict' is not implemented.");
      }
      super(input, init);
    }
  }
  Object.defineProperty(globalThis, "Request", { value: WorkerdRequest, configurable: true });
  try {
    assert.equal(freshReads(client), client);
  } finally {
    Object.defineProperty(globalThis, "Request", descriptor);
  }
  // A fetch that refuses any `this` but undefined, as a runtime's own fetch does.
  let seen: RequestInit | undefined;
  const strict = function (this: unknown, _input: RequestInfo | URL, init?: RequestInit) {
    if (this !== undefined) throw new TypeError("Illegal invocation");
    seen = init;
    return Promise.resolve(new Response("x"));
  };
  const ctx = freshReads(createBaseClient(BASE, "k", { fetch: strict as typeof fetch }));
  const storage = createStorageClient(
    createBaseClient(BASE, "k", { fetch: strict as typeof fetch }),
  );
  assert.notEqual(ctx.fetch, strict);
  assert.equal((await storage.download("b", "a.txt")).getOrNull(), "x");
  assert.equal(seen?.cache, "no-cache");
});

Deno.test("freshReads: the client itself on Node, which keeps no HTTP cache (no Cache-Control: max-age=0 for a CDN to revalidate at the origin)", async () => {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  let seen: RequestInit | undefined;
  const fetch = ((_input: RequestInfo | URL, init?: RequestInit) => {
    seen = init;
    return Promise.resolve(new Response("x"));
  }) as typeof globalThis.fetch;
  const client = createBaseClient(BASE, "k", { fetch });
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: "Node.js/22" },
    configurable: true,
  });
  try {
    assert.equal(freshReads(client), client);
    assert.equal((await createStorageClient(client).download("b", "a.txt")).getOrNull(), "x");
    assert.equal(seen?.cache, undefined);
  } finally {
    if (descriptor) Object.defineProperty(globalThis, "navigator", descriptor);
    else delete (globalThis as { navigator?: unknown }).navigator;
  }
  // Elsewhere (Deno here) the mode is given.
  await createStorageClient(client).download("b", "a.txt");
  assert.equal(seen?.cache, "no-cache");
});
