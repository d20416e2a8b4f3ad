/**
 * The sessions flow, runtime-neutral (see `helpers.ts`): sign-up and sign-in through the client
 * helpers, a `SessionManager` over the runtime's storage (a browser's `localStorage`, a Worker's
 * KV), an explicit refresh, a second manager (another tab, another request) restoring from the
 * same entry, claims verified locally and by the server, an unsigned token refused, and a
 * sign-out that clears the entry for both.
 */
import type { Client } from "../../../client.ts";
import { createAuthClient } from "../../../auth/client.ts";
import { getClaims } from "../../../auth/get_claims.ts";
import {
  createSessionManager,
  type SessionManager,
  type SessionState,
} from "../../../session/manager.ts";
import type { SessionStorage } from "../../../session/storage.ts";
import { signInWithEmail, signOut, signUpWithEmail } from "../../../session/client_sign_in.ts";
import {
  getClaimsForCurrentSession,
  getUserForCurrentSession,
  signOutCurrentSession,
} from "../../../session/extensions.ts";
import { type Json, said } from "./helpers.ts";

/** The kind of the manager's state. */
export const state = (m: SessionManager): SessionState["kind"] => m.sessionState.value.kind;

/** The refresh token of a stored session's text, or null. */
export const refreshTokenOf = (text: string | null): string | null =>
  text === null ? null : JSON.parse(text).refreshToken ?? null;

/** Options of {@linkcode sessionsFlow}. */
export interface SessionsFlowOptions {
  /** A new client, without a token (one per manager). */
  client: () => Client;
  email: string;
  password: string;
  /** The user metadata's `from`, given at sign-up. */
  from: string;
  /** A new storage over the entry both managers share. */
  storage: () => SessionStorage;
  /** The entry's text as stored, or null. */
  stored: () => Promise<string | null>;
  /** Whether the managers refresh on their own timer (off in the page, on in the Worker). */
  autoRefresh: boolean;
  /**
   * Whether the first manager rotates the token again after the second restored it and the
   * second then refreshes (a spent token, whose newer state it takes from the storage), then the
   * first once more: `refreshAgain`, `secondTabRefresh`, `firstTabRefreshAfter`.
   */
  refreshAcross: boolean;
}

/** Runs the flow. */
export async function sessionsFlow(o: SessionsFlowOptions): Promise<Json> {
  const { email, password } = o;
  const out: Json = {};
  const managed = o.autoRefresh ? {} : { autoRefresh: false };
  const client1 = o.client();
  const up = await signUpWithEmail(client1, email, password, { data: { from: o.from } });
  out.signUp = said(up);
  out.signUpApplied = up.ok && client1.accessToken === up.value.accessToken;
  client1.clearAccessToken();
  const signedIn = await signInWithEmail(client1, email, password);
  if (!signedIn.ok) return { ...out, signIn: said(signedIn) };
  out.signIn = "ok";
  out.signInApplied = client1.accessToken === signedIn.value.accessToken;
  const userId = signedIn.value.user.id;
  out.userMetadata = signedIn.value.user.userMetadata;

  const m1 = createSessionManager(client1.auth, client1, { ...managed, storage: o.storage() });
  const events1: string[] = [];
  const stop1 = m1.onAuthStateChange((e) => void events1.push(e));
  try {
    out.initialize = said(await m1.initialize()); // nothing stored yet
    await m1.saveSession(signedIn.value);
    out.storedAfterSave = refreshTokenOf(await o.stored()) === signedIn.value.refreshToken;
    const refreshed = await m1.refreshSession();
    out.refresh = said(refreshed);
    const r1 = refreshed.ok ? refreshed.value.refreshToken : "";
    out.refreshRotated = refreshed.ok && r1 !== signedIn.value.refreshToken;
    out.refreshApplied = refreshed.ok && client1.accessToken === refreshed.value.accessToken;
    out.storedAfterRefresh = refreshTokenOf(await o.stored()) === r1;

    // A second manager (another tab, another request): its own client, over the same entry.
    const client2 = o.client();
    const auth2 = createAuthClient(client2);
    const m2 = createSessionManager(auth2, client2, { ...managed, storage: o.storage() });
    const events2: string[] = [];
    const stop2 = m2.onAuthStateChange((e) => void events2.push(e), {
      emitInitialSession: false,
    });
    try {
      const restored = await m2.restoreSession();
      out.restore = said(restored);
      out.restoredSameSession = restored.ok && restored.value.refreshToken === r1 &&
        restored.value.user.id === userId && client2.accessToken === restored.value.accessToken;
      // The refresh token last issued: the session's, which the sign-out must revoke.
      let last = r1;
      if (o.refreshAcross) {
        // The first rotates the refresh token; the second, whose token is now spent, takes the
        // stored newer state when it refreshes rather than revoking the session.
        const again = await m1.refreshSession();
        out.refreshAgain = said(again);
        const second = await m2.refreshSession();
        out.secondTabRefresh = said(second);
        // Both still refresh: the session was not revoked.
        out.firstTabRefreshAfter = said(await m1.refreshSession());
        if (again.ok) last = second.ok ? second.value.refreshToken : again.value.refreshToken;
      }

      const token = m2.accessToken ?? "";
      const local = await getClaims(auth2, token);
      out.claimsLocal = local.ok
        ? { sub: local.value.claims.subject === userId, alg: local.value.header.algorithm }
        : said(local);
      const held = await getClaimsForCurrentSession(m2, auth2, {
        expectedAudience: "authenticated",
      });
      out.claimsCurrentSession = held.ok ? held.value.claims.subject === userId : said(held);
      // The server's own check of the token: GET /user.
      const user = await getUserForCurrentSession(auth2, m2);
      out.serverUser = user.ok
        ? user.value.id === userId && user.value.email === email
        : said(user);
      // An unsigned token (alg none) is never accepted, locally or otherwise.
      const [, payload] = token.split(".");
      const none = await getClaims(auth2, `eyJhbGciOiJub25lIn0.${payload}.`);
      out.unsigned = none.ok ? "accepted" : none.error.code;

      const bye = await signOutCurrentSession(auth2, m2);
      out.signOut = said(bye);
      out.storedAfterSignOut = await o.stored();
      out.m2AfterSignOut = { state: state(m2), token: client2.accessToken };
      // The first hears of it when it reads the storage (as a tab on a `storage` event).
      const read = await m1.restoreSession();
      out.m1Restore = said(read);
      out.m1AfterSignOut = { state: state(m1), token: client1.accessToken };
      // The sign-out revoked the session on the server: its last refresh token is dead.
      const dead = await client1.auth.refreshToken(last);
      out.refreshAfterSignOut = dead.ok ? "ok" : dead.error.code;
      out.events2 = events2;
    } finally {
      stop2();
      m2.dispose();
    }
    // The client helper's sign-out of a fresh sign-in clears the client's token.
    await signInWithEmail(client1, email, password);
    const helperOut = await signOut(client1);
    out.helperSignOut = { result: said(helperOut), token: client1.accessToken };
    out.events1 = events1;
  } finally {
    stop1();
    m1.dispose();
  }
  return out;
}
