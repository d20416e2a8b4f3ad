import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import {
  columns,
  createDatabaseClient,
  deleteTyped,
  insertTypedMany,
  selectMaybeSingleTyped,
  selectWithCountTyped,
  updateTyped,
} from "../../database/mod.ts";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";

interface Todo {
  id: number;
  title: string;
  done: boolean;
  priority: number;
  user_id?: string;
}
const todo = columns<Todo>();

Deno.test("database flow against the local PostgREST stand-in, as a signed-in user", async () => {
  const backend = await createLocalBackend();
  await using server = await serve(backend.app.fetch);
  const client = createBaseClient(server.url, backend.apiKey);
  const session = (await client.request({
    method: "POST",
    area: "auth",
    path: "/signup",
    json: { email: "db@example.test", password: "secret-pw" },
  })).getOrThrow().body as { access_token: string };
  client.setAccessToken(session.access_token);
  const db = createDatabaseClient(client);

  const inserted = await insertTypedMany<Partial<Todo>>(db, "todos", [
    { title: "Buy milk", done: false, priority: 2 },
    { title: "Write docs", done: true, priority: 1 },
    { title: "buy bread, rye", done: false, priority: 3 },
  ]);
  assert.equal(inserted.getOrThrow().length, 3);

  const page = (await selectWithCountTyped<Todo>(db, "todos", {
    columns: "id,title,priority",
    block: (q) =>
      q.where((w) => w.ilike(todo.title, "%buy%").isExactly(todo.done, false))
        .orderBy(todo.priority, { order: "desc" }).range(0, 0),
  })).getOrThrow();
  assert.equal(page.count, 2);
  assert.deepEqual(page.rows.map((r) => r.title), ["buy bread, rye"]);

  const inList = (await selectWithCountTyped<Todo>(db, "todos", {
    block: (q) =>
      q.where((w) => w.inList(todo.title, ["buy bread, rye", "Write docs"])).orderBy(todo.id),
  })).getOrThrow();
  assert.deepEqual(inList.rows.map((r) => r.title), ["Write docs", "buy bread, rye"]);

  const updated = await updateTyped<Todo>(
    db,
    "todos",
    { done: true },
    (w) => w.eq(todo.title, "Buy milk"),
  );
  assert.equal(updated.getOrThrow()[0].done, true);
  const none = await selectMaybeSingleTyped<Todo>(db, "todos", {
    block: (q) => q.where((w) => w.eq(todo.priority, 99)),
  });
  assert.equal(none.getOrThrow(), null);
  const removed = await deleteTyped<Todo>(
    db,
    "todos",
    (w) => w.or((o) => o.eq(todo.priority, 1).eq(todo.priority, 2)),
  );
  assert.equal(removed.getOrThrow().length, 2);
  const left = await db.selectCount("todos");
  assert.equal(left.getOrThrow().count, 1);

  client.clearAccessToken();
  const anon = await db.selectCount("todos");
  assert.equal(anon.getOrThrow().count, 0, "row-level security hides other users' rows from anon");
});
