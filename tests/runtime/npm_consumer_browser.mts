// A browser app's TypeScript consumer of the npm package, type-checked by
// tests/runtime/node_test.ts with several TypeScript compilers from npm (the project's, 7, 5.6 and
// 4.7): the DOM library, no Node types, library checks on. It is compiled, never run.
import { createClient } from "fetchbase";
import { createBaseClient, randomBytes, sha256, utf8Encode } from "fetchbase/core";
import { createAuthClient, generatePkceParams, getClaims } from "fetchbase/auth";
import { createSessionManager, KeyValueSessionStorage, webStorageStore } from "fetchbase/session";
import { createStorageClient } from "fetchbase/storage";
import { createSignedUrl } from "fetchbase/storage/objects";
import { column, createDatabaseClient } from "fetchbase/database";

const base = createBaseClient("https://p.example", "anon-key");
const auth = createAuthClient(base);
const pkce = await generatePkceParams();
const claims = await getClaims(auth, "a.b.c");
const manager = createSessionManager(auth, base, {
  storage: new KeyValueSessionStorage(webStorageStore(localStorage)),
});
manager.dispose();

// The bytes these return go to WebCrypto and to fetch as they are.
const digest: ArrayBuffer = await crypto.subtle.digest("SHA-256", utf8Encode("x"));
const key = await crypto.subtle.importKey("raw", randomBytes(32), "HMAC", false, ["sign"]);
const hashed = new Blob([await sha256("x")]);

const storage = createStorageClient(base);
const input = document.querySelector("input")!;
const uploaded = await storage.upload("docs", "a.txt", input.files![0]);
const resumable = storage.createResumableUpload("docs", "b.bin", new Blob(["x"]).stream());
const signed = await createSignedUrl(base, "docs", "a.txt", 60);

const db = createDatabaseClient(base);
const done = column<boolean>("done");
const rows = await db.select("todos", { block: (q) => q.where((w) => w.eq(done, true)) });
// @ts-expect-error a boolean column takes no number
db.buildSelect("todos", { block: (q) => q.where((w) => w.eq(done, 1)) });

const all = createClient("https://p.example", "anon-key");

export { all, claims, digest, hashed, key, pkce, resumable, rows, signed, uploaded };
