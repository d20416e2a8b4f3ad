import { AuthClient as GoTrueClient } from "@supabase/auth-js";
import { createBaseClient } from "../../core/client.ts";
import assert from "node:assert/strict";
import {
  type AuthClient,
  createAuthClient,
  decodeSession,
  pkceChallengeS256,
  type PkceParams,
} from "../../auth/mod.ts";
import { createSessionManager, InMemorySessionStorage } from "../../session/mod.ts";
import {
  jsonResponse,
  type RecordedRequest,
  type Recorder,
  recordingFetch,
  type Responder,
} from "../support/recording_fetch.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";
export const TOKEN = "user-access-token-xyz";

export const SESSION = {
  access_token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.sig",
  refresh_token: "refresh-abc",
  expires_in: 3600,
  expires_at: 1_900_000_000,
  token_type: "bearer",
  user: { id: "u1", email: "ada@example.com", factors: [], identities: [] },
};

export function makeAuth(
  script?: Responder | Array<Response | Responder>,
): { auth: AuthClient; rec: Recorder } {
  const rec = recordingFetch(script ?? (() => jsonResponse(SESSION)));
  return { auth: createAuthClient(createBaseClient(BASE, KEY, { fetch: rec.fetch })), rec };
}

/**
 * Deliberate (docs/CONFORMANCE.md, Auth): fetchbase omits null fields, where auth-js sends
 * `code_challenge: null` in the implicit flow. Conformance tests compare bodies without them, at
 * the top level only: a null inside the user's `data` goes in both.
 */
export function dropNulls(v: unknown): unknown {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
  }
  return v;
}

/**
 * An auth-js client for conformance comparisons: no session kept, no
 * refresh timer, no URL detection, implicit flow unless `extra` says
 * otherwise, every request answered by `answer` through a recording fetch.
 */
export function authJs(
  answer: Responder,
  extra: Record<string, unknown> = {},
): { client: InstanceType<typeof GoTrueClient>; rec: Recorder } {
  const rec = recordingFetch(answer);
  const client = new GoTrueClient({
    url: `${BASE}/auth/v1`,
    headers: { apikey: KEY, Authorization: `Bearer ${KEY}` },
    fetch: rec.fetch,
    persistSession: false,
    autoRefreshToken: false,
    detectSessionInUrl: false,
    flowType: "implicit",
    ...extra,
  });
  return { client, rec };
}

/** What the auth conformance tests compare of a request. */
export interface RequestShape {
  method: string;
  path: string;
  query: string[][];
  apikey: string | null;
  authorization: string | null;
  apiVersion: string | null;
  accept: string | null;
  contentType: string | null;
  body: unknown;
}

/**
 * A recorded GoTrue request as the conformance tests compare it: method, decoded path, sorted
 * query, the headers that matter and the JSON body without null fields (fetchbase omits them,
 * docs/CONFORMANCE.md).
 */
export function requestShape(r: RecordedRequest): RequestShape {
  return {
    method: r.method,
    path: decodeURIComponent(r.url.pathname),
    query: [...r.url.searchParams.entries()].sort(),
    apikey: r.headers.get("apikey"),
    authorization: r.headers.get("authorization"),
    apiVersion: r.headers.get("x-supabase-api-version"),
    accept: r.headers.get("accept"),
    // Compared where there is a body to type (auth-js also labels a bodiless POST).
    contentType: r.text ? r.headers.get("content-type")?.split(";")[0] ?? null : null,
    body: r.text ? dropNulls(JSON.parse(r.text)) : null,
  };
}

/** The verifier auth-js stored for its latest PKCE flow, as fetchbase's `PkceParams`. */
export async function latestPkce(c: unknown): Promise<PkceParams> {
  const store = (c as { memoryStorage: Record<string, string> }).memoryStorage;
  const index = Object.keys(store).find((k) => k.endsWith("-flows-code-verifier"));
  assert.ok(index, "auth-js stored a PKCE flow");
  const flows = JSON.parse(store[index]) as string[];
  const key = Object.keys(store).find((k) => k.endsWith(`-flow-${flows.at(-1)}-code-verifier`));
  assert.ok(key);
  const codeVerifier = (JSON.parse(store[key]) as string).split("/")[0];
  return {
    codeVerifier,
    codeChallenge: await pkceChallengeS256(codeVerifier),
    codeChallengeMethod: "S256",
  };
}

/** An unsigned token (`e30` header, `c2ln` signature) carrying `payload`, as GoTrue answers hold. */
export const jwtOf = (payload: Record<string, unknown>): string =>
  `e30.${btoa(JSON.stringify(payload)).replace(/=+$/, "")}.c2ln`;

/** A GoTrue session answer for `accessToken` and `user`, live until 4,000,000,000. */
export function sessionAnswer(accessToken: string, user: unknown): Record<string, unknown> {
  return {
    access_token: accessToken,
    refresh_token: "refresh-abc",
    expires_in: 3600,
    expires_at: 4_000_000_000,
    token_type: "bearer",
    user,
  };
}

/** Whether a recorded request is auth-js reading the user back (`GET /user`). */
export const isUserRead = (r: RecordedRequest): boolean =>
  r.method === "GET" && r.url.pathname.endsWith("/user");

/** Sets `accessToken`/"r" as auth-js's session, then forgets what that recorded. */
export async function holdTheirSession(
  them: { client: InstanceType<typeof GoTrueClient>; rec: Recorder },
  accessToken: string,
): Promise<void> {
  await them.client.setSession({ access_token: accessToken, refresh_token: "r" });
  them.rec.requests.length = 0;
}

/**
 * Compares the requests both clients sent as {@linkcode requestShape}s after `adjust` (which
 * asserts any deliberate difference); a mismatch, or auth-js sending nothing, is added to
 * `failures` under `label`.
 */
/**
 * Deliberate (docs/CONFORMANCE.md): after an unlink, fetchbase reads the user again with the held
 * session's token (here the unlink's) (GoTrue rewrites the user's email, phone and providers from the identities left), where
 * auth-js sends the DELETE alone. Checks that read and drops it from ours.
 */
export function dropUserReread(o: RequestShape[], t: RequestShape[]): void {
  assert.equal(o.length, t.length + 1);
  const read = o.pop()!;
  assert.equal(`${read.method} ${read.path}`, "GET /auth/v1/user");
  assert.equal(read.authorization, o[o.length - 1].authorization);
}

export function compareRequests(
  failures: string[],
  label: string,
  ours: RecordedRequest[],
  theirs: RecordedRequest[],
  adjust?: (ours: RequestShape[], theirs: RequestShape[]) => void,
): void {
  try {
    const o = ours.map(requestShape);
    const t = theirs.map(requestShape);
    assert.ok(t.length > 0, "auth-js sent nothing");
    adjust?.(o, t);
    assert.deepEqual(o, t, label);
  } catch (e) {
    failures.push(`${label}: ${(e as Error).message}`);
  }
}

/**
 * A session manager (auto-refresh as `autoRefresh`, off by default) over a recording fetch
 * answered by `answer`, holding `session` (saved without a request) when given.
 */
export async function managedSession(
  answer: Responder,
  session?: Record<string, unknown>,
  autoRefresh = false,
) {
  const rec = recordingFetch(answer);
  const base = createBaseClient(BASE, KEY, { fetch: rec.fetch });
  const auth = createAuthClient(base);
  const manager = createSessionManager(auth, base, {
    storage: new InMemorySessionStorage(),
    autoRefresh,
  });
  if (session) await manager.saveSession(decodeSession(session));
  rec.requests.length = 0;
  return { auth, base, manager, rec };
}
