/**
 * The session area: `SessionManager` (persistence, single-flight refresh
 * before expiry, fault-tolerant retries, auth events), storage adapters
 * (memory, key-value, Web Storage, KV namespaces, chunked cookies),
 * session-aware extensions, `...AndSaveSession` extensions, client sign-in
 * helpers and native sign-in.
 *
 * @example A manager that keeps the client signed in
 * ```ts
 * import { createBaseClient } from "@fetchbase/fetchbase/core";
 * import { createAuthClient } from "@fetchbase/fetchbase/auth";
 * import { createSessionManager, signInWithEmailAndSaveSession } from "@fetchbase/fetchbase/session";
 *
 * const client = createBaseClient("https://p.example", "anon-key");
 * const auth = createAuthClient(client);
 * const manager = createSessionManager(auth, client);
 * await manager.initialize();
 * await signInWithEmailAndSaveSession(auth, manager, "ada@example.com", "correct horse");
 * manager.dispose();
 * ```
 *
 * @module
 */

export * from "../auth/mod.ts";
export * from "./and_save.ts";
export * from "./client_sign_in.ts";
export * from "./extensions.ts";
export * from "./manager.ts";
export * from "./storage.ts";
