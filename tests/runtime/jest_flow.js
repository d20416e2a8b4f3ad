// @ts-nocheck -- runs against a built package under Jest, not type-checked by Deno
// The package in a Node app's Jest 30 tests (its `node` environment: a `vm` context of Jest's own,
// into which Node's globals are handed), loaded the three ways Jest can load an ES-modules-only
// package: this file as ES modules under `--experimental-vm-modules`; turned into CommonJS by
// babel-jest with the package transformed too (`transformIgnorePatterns`); turned into CommonJS
// alone on Node 24.9 or later with `--experimental-vm-modules`, where Jest's `require` loads the
// package as it is; and in Jest's jsdom environment with Node's web APIs handed in
// (jest_jsdom_web.cjs); and, as ES modules, under Vitest's node environment. Run by
// tests/runtime/node_test.ts; the README says how to set each up.
import { Blob as NodeBlob } from "node:buffer";
import { createHash } from "node:crypto";
import { createClient } from "fetchbase";
import { generatePkceParams, getClaims } from "fetchbase/auth";
import {
  createSessionManager,
  getClaimsForCurrentSession,
  KeyValueSessionStorage,
} from "fetchbase/session";
import { column } from "fetchbase/database";

const url = process.env.FETCHBASE_URL;
const key = process.env.FETCHBASE_KEY;
const unique = () => `${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;

async function signedIn(tag) {
  const client = createClient(url, key);
  const s = await client.auth.signUpWithEmail(`jest-${tag}-${unique()}@example.test`, "pw-123456");
  expect(s.ok ? "ok" : s.error.message).toBe("ok");
  client.setAccessToken(s.value.accessToken);
  return { client, token: s.value.accessToken };
}

test("PKCE, sign-up, local ES256 verification and a filtered select", async () => {
  const p = await generatePkceParams();
  expect(p.codeChallenge).toBe(createHash("sha256").update(p.codeVerifier).digest("base64url"));
  const { client, token } = await signedIn("select");
  const claims = await getClaims(client.auth, token);
  expect(claims.ok ? claims.value.header.algorithm : claims.error.message).toBe("ES256");
  const title = `jest-${unique()}`;
  expect((await client.database.insert("todos", JSON.stringify([{ title }]))).ok).toBe(true);
  const r = await client.database.select("todos", {
    columns: "title",
    block: (b) => b.where((w) => w.eq(column("title"), title)),
  });
  expect(r.ok ? JSON.parse(r.value) : r.error.message).toEqual([{ title }]);
});

test("plain and resumable uploads of Node's bytes, a Buffer, Node's Blob and a stream", async () => {
  const { client } = await signedIn("upload");
  const bucket = `j-${unique().slice(-8)}`;
  expect((await client.storage.createBucket(bucket, bucket)).ok).toBe(true);
  const text = "bytes through Jest's realm";
  const sources = [
    ["bytes", () => new TextEncoder().encode(text)],
    ["buffer", () => Buffer.from(text)],
    ["blob", () => new NodeBlob([text], { type: "text/plain" })],
    ["stream", () => new Response(text).body],
  ];
  for (const [label, make] of sources) {
    const plain = await client.storage.upload(bucket, `plain/${label}`, make());
    expect([label, plain.ok ? "ok" : plain.error.message]).toEqual([label, "ok"]);
    const tus = await client.storage.createResumableUpload(bucket, `tus/${label}`, make(), {
      chunkSize: 8,
    }).await();
    expect([label, tus.ok ? "ok" : tus.error.message]).toEqual([label, "ok"]);
    for (const path of [`plain/${label}`, `tus/${label}`]) {
      const back = await client.storage.downloadBytes(bucket, path);
      expect([path, back.ok ? new TextDecoder().decode(back.value) : back.error.message])
        .toEqual([path, text]);
    }
  }
});

test("sessions: saved, refreshed, restored by a second manager over a shared store", async () => {
  const items = new Map();
  const store = {
    get: (k) => items.get(k) ?? null,
    set: (k, v) => void items.set(k, v),
    remove: (k) => void items.delete(k),
  };
  const first = createClient(url, key);
  const second = createClient(url, key);
  const m1 = createSessionManager(first.auth, first, {
    storage: new KeyValueSessionStorage(store),
    autoRefresh: false,
  });
  const m2 = createSessionManager(second.auth, second, {
    storage: new KeyValueSessionStorage(store),
    autoRefresh: false,
  });
  try {
    const s = await first.auth.signUpWithEmail(`jest-session-${unique()}@example.test`, "pw-1234");
    expect(s.ok ? "ok" : s.error.message).toBe("ok");
    await m1.saveSession(s.value);
    const r = await m1.refreshSession();
    expect(r.ok ? "ok" : r.error.message).toBe("ok");
    const restored = await m2.restoreSession();
    expect(restored.ok ? restored.value.refreshToken : restored.error.message).toBe(
      r.value.refreshToken,
    );
    const claims = await getClaimsForCurrentSession(m2, second.auth);
    expect(claims.ok ? claims.value.header.algorithm : claims.error.message).toBe("ES256");
  } finally {
    m1.dispose();
    m2.dispose();
  }
});
