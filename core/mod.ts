/**
 * The core of fetchbase: the base client, the one transport every request
 * goes through, results and errors, `StateFlow`, the shared paginator, and
 * encoding and crypto helpers over web APIs. It imports no area.
 *
 * @example A request through the transport
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 *
 * const client = createBaseClient("https://project.example", "anon-key");
 * const r = await client.request({ area: "auth", path: "/health" });
 * console.log(r.ok ? r.value.body : r.error.message);
 * ```
 *
 * @module
 */

export { BaseClient, type ClientOptions, createBaseClient, DEFAULT_TIMEOUT_MS } from "./client.ts";
export * from "./crypto.ts";
export * from "./decode.ts";
export * from "./encoding.ts";
export * from "./http_error.ts";
export * from "./mask.ts";
export * from "./paginator.ts";
export * from "./query.ts";
export * from "./result.ts";
export * from "./retry.ts";
export * from "./state_flow.ts";
export * from "./transport.ts";
export * from "./version.ts";
