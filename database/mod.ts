/**
 * The database area: PostgREST primitives under `/rest/v1` returning raw
 * bodies, the `QueryBuilder`/`WhereBuilder` DSL with PostgREST escaping,
 * typed columns, typed extensions (`select...Typed`, `insert...`,
 * `update...`, `delete...`, `rpc...`, `rpcGet...`) with optional Standard
 * Schema validators, and the paginator.
 *
 * @example A filtered, counted read
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { columns, createDatabaseClient, selectWithCountTyped } from "@fetchbase/fetchbase/database";
 *
 * interface Todo { id: number; title: string; done: boolean }
 * const todo = columns<Todo>();
 * const db = createDatabaseClient(createBaseClient("https://p.example", "anon-key"));
 * const page = await selectWithCountTyped<Todo>(db, "todos", {
 *   block: (q) => q.where((w) => w.eq(todo.done, false)).orderBy(todo.id).range(0, 9),
 * });
 * ```
 *
 * @module
 */

export * from "../core/mod.ts";
export * from "./client.ts";
export * from "./column.ts";
export * from "./models.ts";
export * from "./paginator.ts";
export * from "./query_builder.ts";
export * from "./rpc_typed.ts";
export * from "./typed.ts";
export * from "./validator.ts";
export * from "./where_builder.ts";
