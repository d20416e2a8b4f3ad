/**
 * The database flow, runtime-neutral (see `helpers.ts`): rows written as the signed-in user and
 * read back with the DSL (filters, order, range), typed reads and writes, a filter value with
 * non-ASCII and PostgREST's reserved characters, an exact count by HEAD, and row-level security
 * seen from the anon key.
 */
import type { Client } from "../../../client.ts";
import { column } from "../../../database/column.ts";
import { insertTyped, selectTyped } from "../../../database/typed.ts";
import { type Json, said } from "./helpers.ts";

/** A row of the backend's `todos` table. */
export interface Todo {
  id: number;
  title: string;
  done: boolean;
  priority: number;
  user_id?: string;
}

/** The `title` column. */
export const title = column<string>("title");

/** A title with non-ASCII, `&`, `,`, `(` and `%`, which the flow filters on. */
export const ODD_TITLE = "café & co, (ü) 100%";

/** Options of {@linkcode databaseFlow}. */
export interface DatabaseFlowOptions {
  /** A client signed in as the flow's user. */
  client: Client;
  /** A client with the anon key only. */
  anon: Client;
  /**
   * The titles of the four rows inserted, of priorities 1 (done), 3 ({@linkcode ODD_TITLE}), 2
   * and 5; those of priority 1 must contain an `e`.
   */
  titles: [string, string, string];
}

/** Runs the flow; the caller may add its own steps to the result. */
export async function databaseFlow({ client, anon, titles }: DatabaseFlowOptions): Promise<Json> {
  const db = client.database;
  const table = "todos";
  const out: Json = {};
  const done = column<boolean>("done");
  const priority = column<number>("priority");
  const rows = [
    { title: titles[0], done: true, priority: 1 },
    { title: ODD_TITLE, done: false, priority: 3 },
    { title: titles[1], done: false, priority: 2 },
    { title: titles[2], done: false, priority: 5 },
  ];
  const inserted = await db.insert(table, JSON.stringify(rows));
  out.insert = inserted.ok ? (JSON.parse(inserted.value) as Todo[]).length : said(inserted);
  const typed = await insertTyped<Todo>(db, table, {
    title: "typed row",
    done: false,
    priority: 4,
  } as Todo);
  out.insertTyped = typed.ok
    ? { rows: typed.value.length, hasId: typeof typed.value[0]?.id === "number" }
    : said(typed);
  const open = await selectTyped<Todo>(db, table, {
    columns: "title,priority",
    block: (q) =>
      q.where((w) => w.eq(done, false).greaterEq(priority, 2))
        .orderBy(priority, { order: "desc" })
        .range(1, 2),
  });
  out.selectTyped = open.ok ? open.value : said(open);
  // Non-ASCII, `&`, `,`, `(`, `%` in a filter value: encoded by the library, parsed by the server.
  const odd = await db.select(table, {
    columns: "title",
    block: (q) => q.where((w) => w.eq(title, ODD_TITLE)),
  });
  out.selectEncoded = odd.ok ? JSON.parse(odd.value) : said(odd);
  const some = await db.select(table, {
    columns: "priority",
    block: (q) => q.where((w) => w.inList(priority, [1, 4]).like(title, "*e*")).orderBy(priority),
  });
  out.selectInLike = some.ok ? JSON.parse(some.value) : said(some);
  const counted = await db.selectCount(table, {
    block: (q) => q.where((w) => w.eq(done, false)),
  });
  out.selectCount = counted.ok ? counted.value.count : said(counted);
  // Row-level security: the anon key sees none of the user's rows, and no error.
  const seen = await anon.database.select(table);
  out.anonRows = seen.ok ? JSON.parse(seen.value).length : said(seen);
  return out;
}
