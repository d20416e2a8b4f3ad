/**
 * Resumable uploads answered with a redirect (a proxy or a misconfigured peer: the Storage API
 * never redirects a TUS request): the upload ends at once, not retried, with a Failure that says
 * so and names neither the Location nor the upload URL's query.
 */
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import type { ServiceError } from "../../core/result.ts";
import { createResumableUpload, type ResumableData } from "../../storage/mod.ts";
import { serve } from "../support/serve.ts";
import { TUS_PATH } from "./_tus_peer.ts";

const KEY = "anon-key-123456";
/** The credential a pre-signed upload URL carries in its query. */
const TOKEN = "upload-token-0123456789";
const CHUNK = 1024;
/** Retries as fast as possible: the old code took a redirect for a network error and retried. */
const FAST = { chunkSize: CHUNK, retryBaseDelayMs: 1, retryMaxDelayMs: 1 };

/** One request as the server saw it. */
type Seen = [method: string, offset: string | null, bytes: number];

/**
 * A small TUS server on loopback whose upload URL holds {@linkcode TOKEN} in its query. `redirect`
 * answers a request (the `n`th of its method, from 1) with a status instead, its `Location`
 * holding the upload URL's query; null lets the server answer.
 */
async function tusServer(redirect: (method: string, n: number) => number | null) {
  const seen: Seen[] = [];
  const counts: Record<string, number> = {};
  let offset = 0;
  const server = await serve(async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    seen.push([req.method, req.headers.get("upload-offset"), body.length]);
    const n = counts[req.method] = (counts[req.method] ?? 0) + 1;
    const status = redirect(req.method, n);
    if (status !== null) {
      const location = `https://elsewhere.example${TUS_PATH}/u1?token=${TOKEN}`;
      return new Response(`moved to ${location}`, { status, headers: { location } });
    }
    if (req.method === "POST") {
      offset = body.length;
      const location = `${new URL(req.url).origin}${TUS_PATH}/u1?token=${TOKEN}`;
      return new Response(null, {
        status: 201,
        headers: { location, "upload-offset": String(offset) },
      });
    }
    if (req.method === "PATCH") offset += body.length;
    return new Response(null, {
      status: req.method === "HEAD" ? 200 : 204,
      headers: { "upload-offset": String(offset) },
    });
  });
  return { server, seen };
}

/** The Failure a redirect gives: UNKNOWN, its status, a message without the token. */
function assertRedirected(error: ServiceError, status: number | null, label: string): void {
  assert.equal(error.category, "UNKNOWN", label);
  assert.equal(error.status, status, label);
  assert.match(error.message, /^The server redirected the upload/, label);
  assert.match(error.message, /resumable uploads do not follow redirects$/, label);
  if (status !== null) assert.ok(error.message.includes(`(${status})`), label);
  for (const shown of [error.message, JSON.stringify(error), String(error.cause ?? "")]) {
    assert.ok(!shown.includes(TOKEN), `${label}: ${shown}`);
    assert.ok(!shown.includes("?token"), `${label}: ${shown}`);
  }
}

/** The data as bytes, a Blob and a one-shot stream. */
const inputs: Array<[string, (b: Uint8Array) => ResumableData]> = [
  ["bytes", (b) => b],
  ["Blob", (b) => new Blob([b as Uint8Array<ArrayBuffer>])],
  ["stream", (b) => new Blob([b as Uint8Array<ArrayBuffer>]).stream()],
];

Deno.test("a redirect answered to the creation POST ends the upload at once: one request, UNKNOWN with its status, no token in the message", async () => {
  for (const status of [301, 302, 303, 307, 308]) {
    for (const creationWithUpload of [true, false]) {
      for (const [input, make] of inputs) {
        const label = `${status}, ${input}, creationWithUpload: ${creationWithUpload}`;
        const { server, seen } = await tusServer((m) => (m === "POST" ? status : null));
        try {
          const client = createBaseClient(server.url, KEY);
          const data = new Uint8Array(CHUNK * 2 + 5).fill(7);
          const up = createResumableUpload(client, "b", "p.bin", make(data), {
            ...FAST,
            creationWithUpload,
          });
          const r = await up.await();
          assert.ok(!r.ok, label);
          assertRedirected(r.error, status, label);
          // No retry, no request after it.
          assert.deepEqual(
            seen,
            [["POST", null, creationWithUpload ? CHUNK : 0]],
            label,
          );
          assert.equal(up.uploadUrl, null, label);
        } finally {
          await server.close();
        }
      }
    }
  }
});

Deno.test("a redirect answered to a PATCH mid-upload ends the upload at once: no HEAD, no second PATCH", async () => {
  for (const status of [301, 307, 308]) {
    for (const [input, make] of inputs) {
      const label = `${status}, ${input}`;
      // The POST carries chunk 1, PATCH 1 chunk 2; PATCH 2 is redirected.
      const { server, seen } = await tusServer((
        m,
        n,
      ) => (m === "PATCH" && n === 2 ? status : null));
      try {
        const client = createBaseClient(server.url, KEY);
        const data = new Uint8Array(CHUNK * 3 + 5).fill(9);
        const up = createResumableUpload(client, "b", "p.bin", make(data), FAST);
        const r = await up.await();
        assert.ok(!r.ok, label);
        assertRedirected(r.error, status, label);
        assert.deepEqual(seen, [
          ["POST", null, CHUNK],
          ["PATCH", String(CHUNK), CHUNK],
          ["PATCH", String(CHUNK * 2), CHUNK],
        ], label);
        assert.equal(up.progress.value.bytesUploaded, CHUNK * 2, label);
        // The upload stays resumable from its URL (the pre-signed query included).
        assert.ok(up.uploadUrl?.endsWith(`?token=${TOKEN}`), label);
      } finally {
        await server.close();
      }
    }
  }
});

Deno.test("a redirect answered to the HEAD of a resume from a pre-signed upload URL ends the upload at once", async () => {
  const { server, seen } = await tusServer((m) => (m === "HEAD" ? 307 : null));
  try {
    const client = createBaseClient(server.url, KEY);
    const up = createResumableUpload(client, "b", "p.bin", new Uint8Array(10), {
      ...FAST,
      uploadUrl: `${server.url}${TUS_PATH}/u1?token=${TOKEN}`,
    });
    const r = await up.await();
    assert.ok(!r.ok);
    assertRedirected(r.error, 307, "HEAD");
    assert.deepEqual(seen, [["HEAD", null, 0]]);
  } finally {
    await server.close();
  }
});

Deno.test("a browser's opaque redirect (status 0) ends the upload at once too, UNKNOWN without a status", async () => {
  for (const redirectAt of ["POST", "PATCH"]) {
    const calls: Array<[string, RequestRedirect | undefined]> = [];
    const fetchImpl = (input: RequestInfo | URL, init?: RequestInit) => {
      const method = init?.method ?? "GET";
      calls.push([method, init?.redirect]);
      if (method === redirectAt) {
        // What a browser's fetch gives for `redirect: "manual"`: no status, no headers, no body.
        return Promise.resolve(
          { type: "opaqueredirect", status: 0, ok: false, headers: new Headers(), body: null },
        ) as unknown as Promise<Response>;
      }
      return Promise.resolve(
        new Response(null, {
          status: method === "POST" ? 201 : 204,
          headers: {
            location: `${String(input).split("?")[0]}/u1?token=${TOKEN}`,
            "upload-offset": String(CHUNK * (method === "POST" ? 1 : 2)),
          },
        }),
      );
    };
    const client = createBaseClient("https://project.example", KEY, {
      fetch: fetchImpl as typeof fetch,
    });
    const up = createResumableUpload(client, "b", "p.bin", new Uint8Array(CHUNK * 3), FAST);
    const r = await up.await();
    assert.ok(!r.ok, redirectAt);
    assertRedirected(r.error, null, redirectAt);
    assert.deepEqual(
      calls,
      redirectAt === "POST" ? [["POST", "manual"]] : [["POST", "manual"], ["PATCH", "manual"]],
      redirectAt,
    );
  }
});

Deno.test('Node\'s refusal of a redirect (redirect: "error") ends the upload at once; another network error is still retried', async () => {
  for (
    const [label, cause, requests] of [
      // Node's fetch (undici): TypeError "fetch failed" caused by Error "unexpected redirect".
      ["redirect", new Error("unexpected redirect"), 1],
      ["connection reset", new Error("read ECONNRESET"), 3],
    ] as const
  ) {
    let calls = 0;
    const fetchImpl = () => {
      calls++;
      return Promise.reject(new TypeError("fetch failed", { cause }));
    };
    const client = createBaseClient("https://project.example", KEY, {
      fetch: fetchImpl as typeof fetch,
    });
    const up = createResumableUpload(client, "b", "p.bin", new Uint8Array(10), {
      ...FAST,
      maxAttempts: 3,
    });
    const r = await up.await();
    assert.ok(!r.ok, label);
    if (requests === 1) assertRedirected(r.error, null, label);
    else assert.equal(r.error.category, "NETWORK", label);
    assert.equal(calls, requests, label);
  }
});
