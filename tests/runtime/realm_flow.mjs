// @ts-nocheck -- runs against a built package under Vitest, not type-checked by Deno
// The package under Vitest's jsdom and happy-dom environments, where a web app's tests run: each
// swaps some globals for the DOM library's own (jsdom's `Uint8Array` and `Blob`, happy-dom's
// `Blob`, `File` and fetch) and leaves Node's others (`TextEncoder`, WebCrypto, `Buffer`,
// `node:buffer`'s Blob), so values cross realms and implementations. Run by
// tests/runtime/node_test.ts with `vitest run --globals --environment <jsdom|happy-dom>`.
import { Blob as NodeBlob } from "node:buffer";
import { createHash } from "node:crypto";
import { createClient } from "fetchbase";
import { generatePkceParams, getClaims } from "fetchbase/auth";
import {
  createSessionManager,
  getClaimsForCurrentSession,
  KeyValueSessionStorage,
  signUpWithEmail,
  webStorageStore,
} from "fetchbase/session";
import { encodeHex, timingSafeEqual } from "fetchbase/core";
import { column } from "fetchbase/database";

const url = process.env.FETCHBASE_URL;
const key = process.env.FETCHBASE_KEY;
const dom = navigator.userAgent.includes("jsdom")
  ? "jsdom"
  : navigator.userAgent.includes("HappyDOM")
  ? "happy-dom"
  : "none";

async function signedIn(tag) {
  const client = createClient(url, key);
  const s = await client.auth.signUpWithEmail(
    `${tag}-${crypto.randomUUID()}@example.test`,
    "pw-123456",
  );
  expect(s.ok ? "ok" : s.error.message).toBe("ok");
  client.setAccessToken(s.value.accessToken);
  return { client, token: s.value.accessToken };
}

test("the environment mixes realms: what the flows below cross", () => {
  expect(dom).not.toBe("none");
  // Node's Blob is not the page's in either environment.
  expect(new NodeBlob(["x"]) instanceof Blob).toBe(false);
  if (dom === "jsdom") {
    // Node's TextEncoder and Buffer answer Node's Uint8Array, not jsdom's; jsdom's Blob has no
    // stream(), so Node's fetch cannot send it.
    expect(new TextEncoder().encode("a") instanceof Uint8Array).toBe(false);
    expect(Buffer.from("a") instanceof Uint8Array).toBe(false);
    expect(typeof new Blob(["x"]).stream).toBe("undefined");
  }
});

test("PKCE through WebCrypto and through Node's createHash; encoders over Node's bytes", async () => {
  const p = await generatePkceParams();
  expect(p.codeChallenge).toBe(createHash("sha256").update(p.codeVerifier).digest("base64url"));
  const q = await generatePkceParams({ sha256: (b) => createHash("sha256").update(b).digest() });
  expect(q.codeChallenge).toBe(createHash("sha256").update(q.codeVerifier).digest("base64url"));
  expect(encodeHex(new TextEncoder().encode("ab"))).toBe("6162");
  expect(timingSafeEqual(new TextEncoder().encode("ab"), Buffer.from("ab"))).toBe(true);
});

test("sign up, local ES256 verification and a filtered select", async () => {
  const { client, token } = await signedIn("realm");
  const claims = await getClaims(client.auth, token);
  expect(claims.ok ? claims.value.header.algorithm : claims.error.message).toBe("ES256");
  await client.database.insert("todos", JSON.stringify([{ title: `realm-${dom}` }]));
  const r = await client.database.select("todos", {
    columns: "title",
    block: (b) => b.where((w) => w.eq(column("title"), `realm-${dom}`)),
  });
  expect(r.ok ? JSON.parse(r.value) : r.error.message).toEqual([{ title: `realm-${dom}` }]);
});

test("sessions over the DOM library's localStorage: saved, refreshed, restored by a second manager", async () => {
  localStorage.removeItem("realm.session");
  const storage = () => new KeyValueSessionStorage(webStorageStore(localStorage), "realm.session");
  const client = createClient(url, key);
  const m1 = createSessionManager(client.auth, client, { storage: storage(), autoRefresh: false });
  const client2 = createClient(url, key);
  const m2 = createSessionManager(client2.auth, client2, {
    storage: storage(),
    autoRefresh: false,
  });
  try {
    const events = [];
    m1.onAuthStateChange((e) => void events.push(e));
    const s = await signUpWithEmail(client, `realm-${crypto.randomUUID()}@example.test`, "pw-1234");
    expect(s.ok ? "ok" : s.error.message).toBe("ok");
    await m1.saveSession(s.value);
    const r = await m1.refreshSession();
    expect(r.ok ? "ok" : r.error.message).toBe("ok");
    expect(JSON.parse(localStorage.getItem("realm.session")).refreshToken).toBe(
      r.value.refreshToken,
    );
    const restored = await m2.restoreSession();
    expect(restored.ok ? restored.value.refreshToken : restored.error.message).toBe(
      r.value.refreshToken,
    );
    const claims = await getClaimsForCurrentSession(m2, client2.auth);
    expect(claims.ok ? claims.value.header.algorithm : claims.error.message).toBe("ES256");
    expect(events).toEqual(["INITIAL_SESSION", "SIGNED_IN", "TOKEN_REFRESHED"]);
  } finally {
    m1.dispose();
    m2.dispose();
    localStorage.removeItem("realm.session");
  }
});

const TEXT = "bytes from another realm";
const sources = [
  ["Node's TextEncoder bytes", () => new TextEncoder().encode(TEXT), "application/octet-stream"],
  ["a Buffer", () => Buffer.from(TEXT), "application/octet-stream"],
  ["Node's ArrayBuffer", () => new NodeBlob([TEXT]).arrayBuffer(), "application/octet-stream"],
  ["the page's Blob", () => new Blob([TEXT], { type: "text/plain" }), "text/plain"],
  ["the page's File", () => new File([TEXT], "a.csv", { type: "text/csv" }), "text/csv"],
  ["Node's Blob", () => new NodeBlob([TEXT], { type: "text/markdown" }), "text/markdown"],
  ["a stream", () => new Response(TEXT).body, "application/octet-stream"],
];

test("plain uploads of every kind of data store its bytes and a Blob's type", async () => {
  const { client } = await signedIn("upload");
  const bucket = `r-${crypto.randomUUID().slice(0, 8)}`;
  expect((await client.storage.createBucket(bucket, bucket)).ok).toBe(true);
  for (const [label, make, type] of sources) {
    const path = `plain/${label.replace(/\W+/g, "-")}`;
    const r = await client.storage.upload(bucket, path, await make());
    expect([label, r.ok ? "ok" : r.error.message]).toEqual([label, "ok"]);
    const back = await client.storage.downloadBytes(bucket, path);
    expect([label, back.ok ? new TextDecoder().decode(back.value) : back.error.message]).toEqual([
      label,
      TEXT,
    ]);
    const info = await client.storage.info(bucket, path);
    expect([label, info.ok ? info.value.contentType : info.error.message]).toEqual([label, type]);
  }
});

test("resumable uploads of the page's Blob, Node's Blob and Node's bytes, in several chunks", async () => {
  const { client } = await signedIn("tus");
  const bucket = `t-${crypto.randomUUID().slice(0, 8)}`;
  expect((await client.storage.createBucket(bucket, bucket)).ok).toBe(true);
  const chunk = 64 * 1024;
  const data = new Uint8Array(chunk * 2 + 123).map((_, i) => (i * 7 + (i >> 8)) & 0xff);
  const kinds = [
    ["the page's Blob", new Blob([data], { type: "image/png" })],
    ["Node's Blob", new NodeBlob([data])],
    ["Node's bytes", Buffer.from(data)],
  ];
  for (const [label, source] of kinds) {
    const path = `tus/${label.replace(/\W+/g, "-")}`;
    const up = client.storage.createResumableUpload(bucket, path, source, { chunkSize: chunk });
    const r = await up.await();
    expect([label, r.ok ? "ok" : r.error.message]).toEqual([label, "ok"]);
    const back = await client.storage.downloadBytes(bucket, path);
    const same = back.ok && back.value.length === data.length &&
      back.value.every((b, i) => b === data[i]);
    expect([label, same]).toEqual([label, true]);
  }
});
