/**
 * What the runtime flows of this directory report wherever they run, for the tests that check
 * them: `../browser/_harness.ts` (the page, in every engine) and `../workers_flows_test.ts` (the
 * Worker, at every date and with either fetch). Each adds what its runtime does on its own or sees
 * differently (on another origin a browser sees only the headers a service exposes).
 */

type Json = Record<string, unknown>;

/**
 * The sessions flow (`sessions.ts`), but for `userMetadata` and the managers' events, which
 * depend on the runtime's options.
 */
export const SESSIONS: Json = {
  signUp: "ok",
  signUpApplied: true,
  signIn: "ok",
  signInApplied: true,
  initialize: "NO_SESSION: No active session",
  storedAfterSave: true,
  refresh: "ok",
  refreshRotated: true,
  refreshApplied: true,
  storedAfterRefresh: true,
  restore: "ok",
  restoredSameSession: true,
  claimsLocal: { sub: true, alg: "ES256" },
  claimsCurrentSession: true,
  serverUser: true,
  unsigned: "unsupported_algorithm",
  signOut: "ok",
  storedAfterSignOut: null,
  m2AfterSignOut: { state: "NotAuthenticated", token: null },
  m1Restore: "NO_SESSION: No active session",
  m1AfterSignOut: { state: "NotAuthenticated", token: null },
  refreshAfterSignOut: "refresh_token_not_found",
  helperSignOut: { result: "ok", token: null },
};

/** The cancellation flow (`abort.ts`). */
export const ABORT: Json = {
  longSignal: "ok",
  signalTimeout: { category: "CANCELLED", cause: "TimeoutError", withinMs: true },
  optionTimeout: { category: "TIMEOUT", withinMs: true },
};

/** The database flow (`database.ts`). */
export const DATABASE: Json = {
  insert: 4,
  insertTyped: { rows: 1, hasId: true },
  selectTyped: [
    { title: "typed row", priority: 4 },
    { title: "café & co, (ü) 100%", priority: 3 },
  ],
  selectEncoded: [{ title: "café & co, (ü) 100%" }],
  selectInLike: [{ priority: 1 }, { priority: 4 }],
  selectCount: 4,
  anonRows: 0,
};

/**
 * The storage flow (`storage.ts`), but for what depends on the runtime's uploads (`upload`,
 * `uploadedBack`, `list`, `removeMany`) and on the headers it sees (`rangeStream`, `signedUrl`).
 */
export const STORAGE: Json = {
  downloadText: true,
  downloadBlob: true,
  blobInfo: { size: 16, type: "text/plain" },
  downloadBytes: true,
  downloadStream: { status: 200, same: true },
  range: true,
  infoBeforeUpdate: 18,
  update: "ok",
  downloadAfterUpdate: "second version",
  bytesAfterUpdate: "second version",
  infoAfterUpdate: 14,
  removeOne: "ok",
  existsAfterRemove: false,
  existsAfter: false,
  listAfter: [],
};

/**
 * The sessions flow's own steps and events when its managers do not auto-refresh and the second
 * refreshes after the first (`refreshAcross`), as the browser's two tabs and the Edge Runtime run
 * it.
 */
export const SESSIONS_ACROSS: Json = {
  refreshAgain: "ok",
  secondTabRefresh: "ok",
  firstTabRefreshAfter: "ok",
  events2: ["SIGNED_IN", "TOKEN_REFRESHED", "SIGNED_OUT"],
  events1: [
    "INITIAL_SESSION",
    "SIGNED_IN",
    "TOKEN_REFRESHED",
    "TOKEN_REFRESHED",
    "TOKEN_REFRESHED",
    "SIGNED_OUT",
  ],
};

/**
 * What the storage flow sees of a range stream's and a signed URL's headers where it sees them
 * all (on the project's own origin, or from a server: not a page on another origin).
 */
export const STORAGE_HEADERS: Json = {
  rangeStream: { status: 206, contentRange: "bytes 2990-2999/3000", same: true },
  signedUrl: {
    status: 200,
    same: true,
    disposition:
      "attachment; filename=r%C3%A9%20sum%C3%A9.bin; filename*=UTF-8''r%C3%A9%20sum%C3%A9.bin",
  },
};
