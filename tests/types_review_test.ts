// Compile-time checks of the public types: `deno test` type-checks this file, so every line marked
// `@ts-expect-error` must be refused and every other line must compile. The calls that would reach
// a network sit in functions that are type-checked but never run.
import assert from "node:assert/strict";
import { MfaFactorType } from "../auth/mod.ts";
import { createBaseClient } from "../core/mod.ts";
import {
  columns,
  createDatabaseClient,
  deleteUnit,
  insertTyped,
  insertTypedMany,
  paginator,
  rpcGetListTyped,
  rpcGetTyped,
  rpcTyped,
  rpcUnit,
  selectTyped,
  updateTyped,
  updateUnitTyped,
  upsertTyped,
  upsertTypedMany,
  WhereBuilder,
} from "../database/mod.ts";
import { createSessionManager, linkIdentityForCurrentSession } from "../session/mod.ts";
import { createStorageClient, VectorDataType, VectorDistanceMetric } from "../storage/mod.ts";
import { createAuthClient } from "../auth/mod.ts";

interface Row {
  id: number;
  note: string | null;
  tags: string[] | null;
  due?: string;
  flag?: boolean;
}

Deno.test("types: range, list and array operators refuse null, which they throw on", () => {
  const row = columns<Row>();
  const w = new WhereBuilder();
  // @ts-expect-error greater throws a TypeError for null: use isNull
  assert.throws(() => w.greater(row.note, null), TypeError);
  // @ts-expect-error lessEq throws a TypeError for null
  assert.throws(() => w.lessEq(row.note, null), TypeError);
  // @ts-expect-error within throws a TypeError for a null bound
  assert.throws(() => w.within(row.note, { from: null, to: "b" }), TypeError);
  // @ts-expect-error inList throws a TypeError for a null item
  assert.throws(() => w.inList(row.note, ["a", null]), TypeError);
  // @ts-expect-error contains throws a TypeError for null
  assert.throws(() => w.contains(row.tags, null), TypeError);
  // @ts-expect-error overlaps throws a TypeError for null
  assert.throws(() => w.overlaps(row.tags, null), TypeError);
  // @ts-expect-error a column given by name refuses null too
  assert.throws(() => w.greater("note", null), TypeError);
  // What they take on a nullable column: the non-null values.
  w.greater(row.note, "a").lessEq(row.note, "z").within(row.note, { from: "a", to: "b" })
    .inList(row.note, ["a", "b"]).contains(row.tags, ["x"]).overlaps(row.tags, ["x"]);
  // eq, neq and isDistinctFrom still take null (`is.null`).
  w.eq(row.note, null).neq(row.note, null).isDistinctFrom(row.note, null);
  assert.equal(w.predicates.length, 9);
});

Deno.test("types: an optional field is a column of its value, never of undefined", () => {
  const row = columns<Row>();
  const w = new WhereBuilder();
  const maybe = Deno.env.get("FETCHBASE_TYPES_REVIEW_UNSET");
  // @ts-expect-error eq throws a TypeError for undefined
  assert.throws(() => w.eq(row.due, maybe), TypeError);
  // @ts-expect-error greater throws a TypeError for undefined
  assert.throws(() => w.greater(row.due, maybe), TypeError);
  // Text and boolean operators take an optional text or boolean field.
  w.like(row.due, "2024-%").ilike(row.due, "%x%").isExactly(row.flag, true);
  w.eq(row.due, "2024-01-01").eq(row.due, null);
  assert.equal(w.predicates.length, 5);
});

Deno.test("types: a block returning a promise (its filters would come after the request) is refused", () => {
  const row = columns<Row>();
  const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
  const lookUp = (): Promise<number> => Promise.resolve(7);
  const _typeOnly = async () => {
    // @ts-expect-error an async filter block would reach every row
    await db.delete("todos", async (w) => w.eq(row.id, await lookUp()));
    // @ts-expect-error a typed delete's async block too
    await deleteUnit(db, "todos", async (w) => void w.eq(row.id, await lookUp()));
    // @ts-expect-error an async read block
    await selectTyped<Row>(db, "todos", { block: async (q) => q.limit(await lookUp()) });
    // @ts-expect-error an async where inside a read block
    await db.select("todos", { block: (q) => q.where(async (w) => w.eq(row.id, await lookUp())) });
    // @ts-expect-error an async group
    await db.delete("todos", (w) => w.or(async (g) => g.eq(row.id, await lookUp())));
    // Blocks written as one chain or as statements compile.
    const id = await lookUp();
    await db.delete("todos", (w) => w.eq(row.id, id));
    await db.update("todos", "{}", (w) => {
      w.eq(row.id, id);
    });
    await selectTyped<Row>(db, "todos", {
      block: (q) => q.where((w) => w.eq(row.id, id)).limit(1),
    });
    await paginator<Row>(db, "todos", { block: (q) => void q.orderBy(row.id) }).loadNext();
  };
  assert.equal(typeof _typeOnly, "function");
});

Deno.test("types: rpc arguments may be a value of an interface type, not an array", () => {
  interface Args {
    p_owner: string;
    p_limit: number;
  }
  const args: Args = { p_owner: "u1", p_limit: 5 };
  // Fields named like a list's or a Map's (`length`, `size`) are arguments like any other.
  interface Page {
    q: string;
    size: number;
    length: number;
  }
  const page: Page = { q: "milk", size: 10, length: 3 };
  const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
  const _typeOnly = async () => {
    await rpcTyped<number>(db, "count_open", { params: args });
    await rpcUnit(db, "touch", { params: args });
    await rpcGetTyped<number>(db, "count_open", { params: args });
    await db.rpcGet("count_open", { params: args });
    await rpcTyped<number>(db, "count_open", { params: { p_owner: "u1" } });
    await rpcTyped<number>(db, "search", { params: page });
    await rpcGetTyped<number>(db, "search", { params: page });
    // @ts-expect-error nor is a Set
    await rpcTyped<number>(db, "count_open", { params: new Set([1]) });
    // @ts-expect-error an array is not a set of named arguments
    await rpcTyped<number>(db, "count_open", { params: [1, 2] });
    // @ts-expect-error nor is a function
    await rpcGetTyped<number>(db, "count_open", { params: () => 1 });
    // The typed GET forms take ordered pairs, as rpcGet does (a repeated name for a variadic).
    await rpcGetListTyped<number>(db, "pick", { queryParams: [["id", "1"], ["id", "2"]] });
  };
  assert.equal(typeof _typeOnly, "function");
});

Deno.test("types: lists that are only read may be readonly", () => {
  const base = createBaseClient("https://p.example", "anon-key");
  const storage = createStorageClient(base);
  const auth = createAuthClient(base);
  const NAMESPACE = ["analytics", "events"] as const;
  const MIME = ["image/png", "image/jpeg"] as const;
  const SCOPES = ["repo", "read:user"] as const;
  const QUERY: Readonly<Record<string, string>> = { prompt: "consent" };
  const _typeOnly = async () => {
    const catalog = storage.analyticsCatalog("lake");
    await catalog.createNamespace(NAMESPACE, { properties: { owner: "data" } });
    await catalog.createNamespaceTyped({ namespace: NAMESPACE });
    await catalog.listNamespaces({ parent: NAMESPACE });
    await catalog.listNamespacesTyped({ parent: NAMESPACE });
    await catalog.getNamespaceMetadata(NAMESPACE);
    await catalog.getNamespaceMetadataTyped(NAMESPACE);
    await catalog.updateNamespaceProperties(NAMESPACE, { removals: ["old"] as const });
    await catalog.updateNamespacePropertiesTyped(NAMESPACE, { removals: ["old"] as const });
    await catalog.listTables(NAMESPACE);
    await catalog.listTablesTyped(NAMESPACE);
    await catalog.createTable(NAMESPACE, { name: "t", schema: {} });
    await catalog.createTableTyped(NAMESPACE, { name: "t", schema: {} });
    await catalog.updateTable(NAMESPACE, "t", {});
    await catalog.updateTableTyped(NAMESPACE, "t", {});
    await catalog.getTable(NAMESPACE, "t");
    await catalog.getTableTyped(NAMESPACE, "t");
    await catalog.deleteTable(NAMESPACE, "t", { purge: true });
    await catalog.registerTable(NAMESPACE, { name: "t", "metadata-location": "s3://x" });
    await catalog.registerTableTyped(NAMESPACE, { name: "t", metadataLocation: "s3://x" });
    await catalog.deleteNamespace(NAMESPACE);
    await storage.createBucket("avatars", "avatars", { allowedMimeTypes: MIME });
    await storage.updateBucket("avatars", { allowedMimeTypes: MIME });
    const manager = createSessionManager(auth, base, { autoRefresh: false });
    await auth.linkIdentity("token", "github", { scopes: SCOPES, queryParams: QUERY });
    await linkIdentityForCurrentSession(auth, manager, "github", {
      scopes: SCOPES,
      queryParams: QUERY,
    });
  };
  assert.equal(typeof _typeOnly, "function");
});

Deno.test("types: UNKNOWN, a decoding fallback, is not a value to send", () => {
  const base = createBaseClient("https://p.example", "anon-key");
  const storage = createStorageClient(base);
  const auth = createAuthClient(base);
  const _typeOnly = async () => {
    // @ts-expect-error the server has no factor type `unknown`
    await auth.mfaEnroll("token", MfaFactorType.UNKNOWN);
    await auth.mfaEnroll("token", MfaFactorType.TOTP, { issuer: "Example" });
    // @ts-expect-error the server has no data type `unknown`
    await storage.createVectorIndex("vb", "i", VectorDataType.UNKNOWN, 3, "cosine");
    // @ts-expect-error the server has no distance metric `unknown`
    await storage.createVectorIndex("vb", "i", "float32", 3, VectorDistanceMetric.UNKNOWN);
    await storage.createVectorIndex(
      "vb",
      "i",
      VectorDataType.FLOAT32,
      3,
      VectorDistanceMetric.COSINE,
    );
  };
  assert.equal(typeof _typeOnly, "function");
});

Deno.test("types: an update's fields may be undefined (left out) under exactOptionalPropertyTypes; its values are recorded as sent", async () => {
  interface Todo {
    id: number;
    title: string;
    done: boolean;
  }
  const sent: string[] = [];
  const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
    sent.push(String(init?.body));
    return Promise.resolve(Response.json([]));
  };
  const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key", { fetch }));
  // A form whose fields may be unset, as `exactOptionalPropertyTypes` types them.
  const form: { title?: string | undefined; done?: boolean | undefined } = { done: true };
  await updateTyped<Todo>(
    db,
    "todos",
    { title: form.title, done: form.done },
    (w) => w.eq("id", 1),
  );
  await updateUnitTyped<Todo>(db, "todos", form, (w) => w.eq("id", 1));
  assert.deepEqual(sent.map((b) => JSON.parse(b)), [{ done: true }, { done: true }]);
  const _typeOnly = async () => {
    // @ts-expect-error a field of the wrong type still does not type-check
    await updateTyped<Todo>(db, "todos", { done: "yes" }, null);
    // @ts-expect-error nor does a field the row has not
    await updateTyped<Todo>(db, "todos", { color: "red" }, null);
  };
  assert.equal(typeof _typeOnly, "function");
});

Deno.test("types: typed inserts return rows of the value's type unless the rows' type is named or a validator gives it", async () => {
  interface Todo {
    id: number;
    title: string;
  }
  const sent: string[] = [];
  const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key", {
    fetch: async (_input, init) => {
      sent.push(String(init?.body));
      return await Promise.resolve(Response.json([{ id: 7, title: "a" }], { status: 201 }));
    },
  }));
  const plain = await insertTyped(db, "todos", { title: "a" });
  // @ts-expect-error without R the rows are the value's type, which has no id
  plain.getOrThrow()[0].id;
  const named = await insertTyped<{ title: string }, Todo>(db, "todos", { title: "a" });
  const id: number = named.getOrThrow()[0].id;
  assert.equal(id, 7);
  const isTodo = (v: unknown): Todo => v as Todo;
  const validated = await insertTypedMany(db, "todos", [{ title: "a" }], { validator: isTodo });
  assert.equal(validated.getOrThrow()[0].id satisfies number, 7);
  const upserted = await upsertTyped(db, "todos", { title: "a" }, { validator: isTodo });
  assert.equal(upserted.getOrThrow()[0].id satisfies number, 7);
  const many = await upsertTypedMany<{ title: string }, Todo>(db, "todos", [{ title: "a" }]);
  assert.equal(many.getOrThrow()[0].id satisfies number, 7);
  assert.deepEqual(
    sent,
    Array(5).fill('{"title":"a"}').map((b, i) => i === 2 || i === 4 ? `[${b}]` : b),
  );
});
