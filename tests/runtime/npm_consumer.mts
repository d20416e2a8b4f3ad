// A TypeScript consumer of the npm package, type-checked by tests/runtime/node_test.ts with
// the TypeScript compiler from npm: Node's module resolution (nodenext), strict, library
// checks on, and Node's types only (no DOM library). It is compiled, never run.
import { createReadStream } from "node:fs";
import { createClient } from "fetchbase";
import { createBaseClient, type ServiceResult } from "fetchbase/core";
import { createAuthClient, getClaims, type VerificationKey } from "fetchbase/auth";
import { createSessionManager, KeyValueSessionStorage, webStorageStore } from "fetchbase/session";
import { createStorageClient } from "fetchbase/storage";
import { upload } from "fetchbase/storage/objects";
import {
  column,
  createDatabaseClient,
  selectTyped,
  type StandardSchemaV1,
} from "fetchbase/database";
import { fetchbaseAuth } from "fetchbase/hono";

interface Todo {
  id: number;
  title: string;
  done: boolean;
}

const base = createBaseClient("https://p.example", "anon-key");
const auth = createAuthClient(base);
const claims = await getClaims(auth, "a.b.c", { expectedAudience: "authenticated" });
const subject: string | null = claims.ok ? claims.value.claims.subject : null;
const key: VerificationKey | null = auth.jwks.cachedVerificationKey("kid");

const items = new Map<string, string>();
const manager = createSessionManager(auth, base, {
  storage: new KeyValueSessionStorage(webStorageStore({
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  })),
});
manager.dispose();

const storage = createStorageClient(base);
const key1: ServiceResult<string> = await storage.upload("docs", "a.txt", new Uint8Array(1));
const signed = await storage.createSignedUrl("docs", "a.txt", 60, { download: true });
const viaFunction = await upload(base, "docs", "b.txt", new Blob(["x"]));
// A Node stream (a file's, a request's body) takes the upload's data type as it is.
const fromFile = await storage.upload("docs", "c.bin", createReadStream("c.bin"));
const resumable = storage.createResumableUpload("docs", "d.bin", createReadStream("d.bin"));

const db = createDatabaseClient(base);
const done = column<boolean>("done");
const raw = await db.select("todos", {
  columns: "id,title",
  block: (q) => q.where((w) => w.eq(done, false)).limit(10),
});
const todos: ServiceResult<Todo[]> = await selectTyped<Todo>(db, "todos");
// The row type from a validator: a function's result, or a Standard Schema's output even where
// the schema can also be called (as arktype's can, returning the value or its errors).
const checked: ServiceResult<Todo[]> = await selectTyped(db, "todos", {
  validator: (row) => row as Todo,
});
const standard: StandardSchemaV1<Todo>["~standard"] = {
  version: 1,
  vendor: "app",
  validate: (value) => ({ value: value as Todo }),
};
const schema = Object.assign((row: unknown) => row as Todo | { summary: string }, {
  "~standard": standard,
});
const viaSchema: ServiceResult<Todo[]> = await selectTyped(db, "todos", { validator: schema });
// @ts-expect-error a boolean column takes no string
db.buildSelect("todos", { block: (q) => q.where((w) => w.eq(done, "yes")) });

const middleware = fetchbaseAuth({ url: "https://p.example", apiKey: "anon-key" });
const all = createClient("https://p.example", "anon-key");

// Checked with `exactOptionalPropertyTypes`: an app forwards values that may be undefined to any
// option (undefined is the option left out), as it would from its own optional settings.
declare const maybe: {
  signal?: AbortSignal;
  timeout?: number;
  attempts?: number;
  contentType?: string;
  audience?: string;
};
const forwarded = createClient("https://p.example", "anon-key", {
  timeout: maybe.timeout,
  retry: { maxAttempts: maybe.attempts },
});
createAuthClient(base, { jwks: { maxAgeMs: maybe.timeout } });
await getClaims(forwarded.auth, "a.b.c", {
  expectedAudience: maybe.audience,
  signal: maybe.signal,
});
await forwarded.database.select("todos", { signal: maybe.signal, timeout: maybe.timeout });
await forwarded.storage.upload("docs", "e.txt", "x", { contentType: maybe.contentType });
forwarded.storage.createResumableUpload("docs", "f.bin", new Uint8Array(1), {
  chunkSize: maybe.attempts,
  timeout: maybe.timeout,
}).await({ signal: maybe.signal });
createSessionManager(forwarded.auth, forwarded, { autoRefresh: undefined }).dispose();
fetchbaseAuth({ url: "https://p.example", apiKey: "anon-key", audience: maybe.audience });

export {
  all,
  checked,
  fromFile,
  key,
  key1,
  middleware,
  raw,
  resumable,
  signed,
  subject,
  todos,
  viaFunction,
  viaSchema,
};
