// The library's main flows as a browser page runs them (imported by `page_entry.ts`): auth and
// sessions over `localStorage`, OAuth URL building and a redirect's fragment imported from the
// address bar, the database DSL and typed calls, and storage uploads, downloads, a signed URL,
// listing and removal, all against the local backend on another origin than the page's (the
// project's URL, as an app's page calls its project: CORS decides which requests go and which
// response headers the library sees). Each flow returns a
// small JSON result; `runFlows` bounds each one, so that a flow that fails or never settles is
// reported (`{ error }` or `{ timedOut }`) and the next one still runs. `_harness.ts` asserts the
// results, the same for every engine.
import { createClient } from "../../../client.ts";
import { createAuthClient } from "../../../auth/client.ts";
import { getClaims } from "../../../auth/get_claims.ts";
import { generatePkceParams } from "../../../auth/pkce.ts";
import { generateOAuthState } from "../../../auth/oauth_state.ts";
import { signInWithOAuth } from "../../../auth/oauth_url.ts";
import { parseSessionTokensFromFragment } from "../../../auth/fragment.ts";
import {
  createSessionManager,
  type SessionManager,
  type SessionState,
} from "../../../session/manager.ts";
import { KeyValueSessionStorage, webStorageStore } from "../../../session/storage.ts";
import { signInWithEmail, signOut, signUpWithEmail } from "../../../session/client_sign_in.ts";
import {
  getClaimsForCurrentSession,
  getUserForCurrentSession,
  importSessionFromUrl,
  signOutCurrentSession,
} from "../../../session/extensions.ts";
import { column } from "../../../database/column.ts";
import { insertTyped, selectTyped } from "../../../database/typed.ts";

// The page's History (Deno's types, which check this file, have no DOM).
declare const history: { replaceState(data: unknown, unused: string, url: string): void };

/** What the page knows: the project's URL, its API key and the signed-in test user's token. */
export interface FlowContext {
  api: string;
  key: string;
  token: string;
}

type Json = Record<string, unknown>;

/** A failed result as `category: message`. */
const said = (r: { ok: boolean; error?: { category: string; message: string } }) =>
  r.ok ? "ok" : `${r.error!.category}: ${r.error!.message}`;

/** The session key both "tabs" share in `localStorage`. */
const SESSION_KEY = "fetchbase.browser-test.session";

/** Runs each flow within `ms`, one after another; a failure or a hang is its result. */
export async function runFlows(context: FlowContext, ms = 8_000): Promise<Record<string, Json>> {
  const flows: Record<string, (c: FlowContext) => Promise<Json>> = {
    sessions,
    abort,
    oauth,
    database,
    storage,
  };
  const results: Record<string, Json> = {};
  for (const [name, flow] of Object.entries(flows)) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      results[name] = await Promise.race([
        flow(context),
        new Promise<Json>((r) => (timer = setTimeout(() => r({ timedOut: ms }), ms))),
      ]);
    } catch (e) {
      results[name] = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    } finally {
      clearTimeout(timer);
    }
  }
  return results;
}

/** The kind of the manager's state. */
const state = (m: SessionManager): SessionState["kind"] => m.sessionState.value.kind;

/**
 * Sign-up and sign-in through the client helpers, a manager over `localStorage` without
 * auto-refresh, an explicit refresh, a second manager (another tab) restoring from the storage
 * and refreshing after the first rotated the token, claims verified locally and by the server,
 * and a sign-out that clears the storage for both.
 */
async function sessions({ api, key }: FlowContext): Promise<Json> {
  localStorage.removeItem(SESSION_KEY);
  const email = `page-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const password = "page-secret-pw";
  const out: Json = {};
  const tab1 = createClient(api, key);
  const up = await signUpWithEmail(tab1, email, password, { data: { from: "page" } });
  out.signUp = said(up);
  out.signUpApplied = up.ok && tab1.accessToken === up.value.accessToken;
  tab1.clearAccessToken();
  const signedIn = await signInWithEmail(tab1, email, password);
  if (!signedIn.ok) return { ...out, signIn: said(signedIn) };
  out.signIn = "ok";
  out.signInApplied = tab1.accessToken === signedIn.value.accessToken;
  const userId = signedIn.value.user.id;
  out.userMetadata = signedIn.value.user.userMetadata;

  const storageOf = () => new KeyValueSessionStorage(webStorageStore(localStorage), SESSION_KEY);
  const m1 = createSessionManager(tab1.auth, tab1, { autoRefresh: false, storage: storageOf() });
  const events1: string[] = [];
  const stop1 = m1.onAuthStateChange((e) => void events1.push(e));
  try {
    out.initialize = said(await m1.initialize()); // nothing stored yet
    await m1.saveSession(signedIn.value);
    const stored = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null");
    out.storedAfterSave = stored?.refreshToken === signedIn.value.refreshToken;
    const refreshed = await m1.refreshSession();
    out.refresh = said(refreshed);
    const r1 = refreshed.ok ? refreshed.value.refreshToken : "";
    out.refreshRotated = refreshed.ok && r1 !== signedIn.value.refreshToken;
    out.refreshApplied = refreshed.ok && tab1.accessToken === refreshed.value.accessToken;
    out.storedAfterRefresh =
      JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null")?.refreshToken === r1;

    // Another tab: its own client and manager over the same localStorage key.
    const tab2 = createClient(api, key);
    const auth2 = createAuthClient(tab2);
    const m2 = createSessionManager(auth2, tab2, { autoRefresh: false, storage: storageOf() });
    const events2: string[] = [];
    const stop2 = m2.onAuthStateChange((e) => void events2.push(e), {
      emitInitialSession: false,
    });
    try {
      const restored = await m2.restoreSession();
      out.restore = said(restored);
      out.restoredSameSession = restored.ok && restored.value.refreshToken === r1 &&
        restored.value.user.id === userId && tab2.accessToken === restored.value.accessToken;
      // The first tab rotates the refresh token; the second, whose token is now spent, takes
      // the stored newer state when it refreshes rather than revoking the session.
      const again = await m1.refreshSession();
      out.refreshAgain = said(again);
      const second = await m2.refreshSession();
      out.secondTabRefresh = said(second);
      // Both tabs still refresh: the session was not revoked.
      out.firstTabRefreshAfter = said(await m1.refreshSession());

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
      out.storageAfterSignOut = localStorage.getItem(SESSION_KEY);
      out.tab2AfterSignOut = { state: state(m2), token: tab2.accessToken };
      // The first tab hears of it when it reads the storage (as on a `storage` event).
      const read = await m1.restoreSession();
      out.tab1Restore = said(read);
      out.tab1AfterSignOut = { state: state(m1), token: tab1.accessToken };
      // The sign-out revoked the session on the server: its last refresh token is dead.
      const dead = await tab1.auth.refreshToken(
        again.ok ? (second.ok ? second.value.refreshToken : again.value.refreshToken) : r1,
      );
      out.refreshAfterSignOut = dead.ok ? "ok" : dead.error.code;
      out.events2 = events2;
    } finally {
      stop2();
      m2.dispose();
    }
    // The client helper's sign-out of a fresh sign-in clears the client's token.
    await signInWithEmail(tab1, email, password);
    const helperOut = await signOut(tab1);
    out.helperSignOut = { result: said(helperOut), token: tab1.accessToken };
    out.events1 = events1;
  } finally {
    stop1();
    m1.dispose();
    localStorage.removeItem(SESSION_KEY);
  }
  return out;
}

/**
 * Cancellation with the browser's own `AbortSignal.timeout`: a call given a long one completes;
 * a call to a route that never answers, given a short one, ends `CANCELLED` with the signal's
 * reason (a `TimeoutError`) as cause; the client's own `timeout` ends it `TIMEOUT`.
 */
async function abort({ api, key, token }: FlowContext): Promise<Json> {
  const client = createClient(api, key, { accessToken: token });
  const out: Json = {};
  const health = await client.auth.getHealth({ signal: AbortSignal.timeout(5_000) });
  out.longSignal = said(health);
  let started = performance.now();
  const slow = await client.database.select("__slow", { signal: AbortSignal.timeout(300) });
  out.signalTimeout = slow.ok ? "ok" : {
    category: slow.error.category,
    cause: (slow.error.cause as { name?: string } | undefined)?.name ?? null,
    withinMs: performance.now() - started < 3_000,
  };
  started = performance.now();
  const timed = await client.database.select("__slow", { timeout: 300 });
  out.optionTimeout = timed.ok
    ? "ok"
    : { category: timed.error.category, withinMs: performance.now() - started < 3_000 };
  return out;
}

/**
 * The OAuth authorize URL with PKCE, read back with the browser's URL parser; then the implicit
 * flow's redirect: the tokens of a sign-in put in the address bar's fragment with a state in its
 * query, imported from `location.href` (a wrong state refused first), and taken out of the address
 * bar again.
 */
async function oauth({ api, key }: FlowContext): Promise<Json> {
  const client = createClient(api, key);
  const out: Json = {};
  const pkce = await generatePkceParams();
  const state = generateOAuthState();
  const callback = `${location.origin}/cb?state=${state}&next=/a b`;
  const { url } = signInWithOAuth(client.auth, "github", {
    redirectTo: callback,
    scopes: ["read:user", "user:email"],
    pkceParams: pkce,
    queryParams: { prompt: "consent" },
  });
  const parsed = new URL(url);
  out.authorize = {
    path: parsed.origin === new URL(api).origin ? parsed.pathname : parsed.href,
    provider: parsed.searchParams.get("provider"),
    redirectBack: parsed.searchParams.get("redirect_to") === callback,
    scopes: parsed.searchParams.get("scopes"),
    challenge: parsed.searchParams.get("code_challenge") === pkce.codeChallenge,
    method: parsed.searchParams.get("code_challenge_method"),
    prompt: parsed.searchParams.get("prompt"),
  };

  // The redirect back: a session's tokens in the fragment, as GoTrue's implicit flow sends them.
  const email = `oauth-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const made = await client.auth.signUpWithEmail(email, "page-secret-pw");
  if (!made.ok) return { ...out, signUp: said(made) };
  const s = made.value;
  const fragment = `access_token=${s.accessToken}&refresh_token=${s.refreshToken}` +
    `&expires_in=${s.expiresIn}&token_type=bearer&type=signup&provider_token=p%2Bq%20r`;
  const before = location.pathname + location.search;
  history.replaceState(null, "", `${before}&state=${state}#${fragment}`);
  out.fragmentParsed = (() => {
    const p = parseSessionTokensFromFragment(location.hash);
    return p.ok ? { type: p.value.type, providerToken: p.value.providerToken } : said(p);
  })();
  const manager = createSessionManager(client.auth, client, {
    autoRefresh: false,
    storage: new KeyValueSessionStorage(webStorageStore(sessionStorage), SESSION_KEY),
  });
  try {
    const wrong = await importSessionFromUrl(client.auth, location.href, manager, {
      expectedState: generateOAuthState(),
    });
    out.wrongState = wrong.ok ? "accepted" : wrong.error.code;
    const imported = await importSessionFromUrl(client.auth, location.href, manager, {
      expectedState: state,
    });
    out.imported = imported.ok
      ? {
        user: imported.value.user.id === s.user.id,
        providerToken: imported.value.providerToken,
        applied: client.accessToken === s.accessToken,
        stored: JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null")?.refreshToken ===
          s.refreshToken,
      }
      : said(imported);
  } finally {
    history.replaceState(null, "", before);
    manager.dispose();
    sessionStorage.removeItem(SESSION_KEY);
  }
  out.addressBarClean = location.hash === "" && location.search === before.slice(
        before.indexOf("?"),
      );
  return out;
}

interface Todo {
  id: number;
  title: string;
  done: boolean;
  priority: number;
  user_id?: string;
}

/**
 * Rows written as the signed-in user and read back with the DSL (filters, order, range), typed
 * reads and writes, an exact count by HEAD (its `Content-Range`, which PostgREST exposes),
 * row-level security seen from the anon key, and a write asked to roll back whose answer cannot
 * show it here.
 */
async function database({ api, key, token }: FlowContext): Promise<Json> {
  const client = createClient(api, key, { accessToken: token });
  const db = client.database;
  const out: Json = {};
  const title = column<string>("title");
  const done = column<boolean>("done");
  const priority = column<number>("priority");
  const rows = [
    { title: "write the page", done: true, priority: 1 },
    { title: "café & co, (ü) 100%", done: false, priority: 3 },
    { title: "run three engines", done: false, priority: 2 },
    { title: "read the report", done: false, priority: 5 },
  ];
  const inserted = await db.insert("todos", JSON.stringify(rows));
  out.insert = inserted.ok ? (JSON.parse(inserted.value) as Todo[]).length : said(inserted);
  const typed = await insertTyped<Todo>(db, "todos", {
    title: "typed row",
    done: false,
    priority: 4,
  } as Todo);
  out.insertTyped = typed.ok
    ? { rows: typed.value.length, hasId: typeof typed.value[0]?.id === "number" }
    : said(typed);
  const open = await selectTyped<Todo>(db, "todos", {
    columns: "title,priority",
    block: (q) =>
      q.where((w) => w.eq(done, false).greaterEq(priority, 2))
        .orderBy(priority, { order: "desc" })
        .range(1, 2),
  });
  out.selectTyped = open.ok ? open.value : said(open);
  // Non-ASCII, `&`, `,`, `(`, `%` in a filter value: encoded by the library, parsed by the server.
  const odd = await db.select("todos", {
    columns: "title",
    block: (q) => q.where((w) => w.eq(title, "café & co, (ü) 100%")),
  });
  out.selectEncoded = odd.ok ? JSON.parse(odd.value) : said(odd);
  const some = await db.select("todos", {
    columns: "priority",
    block: (q) =>
      q.where((w) => w.inList(priority, [1, 4]).like(title, "*e*"))
        .orderBy(priority),
  });
  out.selectInLike = some.ok ? JSON.parse(some.value) : said(some);
  const counted = await db.selectCount("todos", {
    block: (q) => q.where((w) => w.eq(done, false)),
  });
  out.selectCount = counted.ok ? counted.value.count : said(counted);
  // Row-level security: the anon key sees none of the user's rows, and no error.
  const anon = await createClient(api, key).database.select("todos");
  out.anonRows = anon.ok ? JSON.parse(anon.value).length : said(anon);
  // A write asked to roll back: the backend, as PostgREST by default, commits it, and its
  // Preference-Applied (which would show it) is not exposed to this page: it cannot tell.
  const rolled = await db.insert("todos", '{"title":"rolled back?","done":true,"priority":9}', {
    rollback: true,
  });
  out.rollback = said(rolled).replace(/ as the answer .*/, "");
  const kept = await db.selectCount("todos", {
    block: (q) => q.where((w) => w.eq(title, "rolled back?")),
  });
  out.rollbackCommitted = kept.ok ? kept.value.count === 1 : said(kept);
  return out;
}

/**
 * Plain uploads of bytes, a Blob and a string; downloads as text, bytes and a stream (read to its
 * end); a range; a signed URL fetched without credentials; info, list and removal.
 */
async function storage({ api, key, token }: FlowContext): Promise<Json> {
  const client = createClient(api, key, { accessToken: token });
  const st = client.storage;
  const out: Json = {};
  const bytes = new Uint8Array(3000).map((_, i) => (i * 13 + 5) % 256);
  const text = "héllo ✓ string\n";
  const blobText = "blob: ünïcode\n";
  const bucket = "browser";
  out.upload = {
    bytes: said(await st.upload(bucket, "files/bytes.bin", bytes)),
    blob: said(
      await st.upload(bucket, "files/blob.txt", new Blob([blobText], { type: "text/plain" })),
    ),
    string: said(
      // Kept an hour by whoever reads it (storage-js's default): a browser's HTTP cache too.
      await st.upload(bucket, "files/string.txt", text, {
        contentType: "text/plain; charset=utf-8",
        cacheControl: 3600,
      }),
    ),
  };
  const same = (a: Uint8Array, b: Uint8Array) =>
    a.length === b.length && a.every((v, i) => v === b[i]);
  const asText = await st.download(bucket, "files/string.txt");
  out.downloadText = asText.ok ? asText.value === text : said(asText);
  const blobBack = await st.download(bucket, "files/blob.txt");
  out.downloadBlob = blobBack.ok ? blobBack.value === blobText : said(blobBack);
  const info = await st.info(bucket, "files/blob.txt");
  out.blobInfo = info.ok ? { size: info.value.size, type: info.value.contentType } : said(info);
  const asBytes = await st.downloadBytes(bucket, "files/bytes.bin");
  out.downloadBytes = asBytes.ok ? same(asBytes.value, bytes) : said(asBytes);
  const streamed = await st.downloadStream(bucket, "files/bytes.bin");
  if (streamed.ok) {
    const chunks: Uint8Array[] = [];
    const reader = streamed.value.stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) all.set(c, (at += c.length) - c.length);
    out.downloadStream = { status: streamed.value.status, same: same(all, bytes) };
  } else out.downloadStream = said(streamed);
  const range = await st.downloadBytes(bucket, "files/bytes.bin", {
    range: { start: 1000, end: 1009 },
  });
  out.range = range.ok ? same(range.value, bytes.subarray(1000, 1010)) : said(range);
  const rangeStream = await st.downloadStream(bucket, "files/bytes.bin", {
    range: { start: 2990 },
  });
  if (rangeStream.ok) {
    const got = new Uint8Array(await new Response(rangeStream.value.stream).arrayBuffer());
    out.rangeStream = {
      status: rangeStream.value.status,
      contentRange: rangeStream.value.contentRange,
      same: same(got, bytes.subarray(2990)),
    };
  } else out.rangeStream = said(rangeStream);
  const signed = await st.createSignedUrl(bucket, "files/bytes.bin", 60, {
    download: true,
    fileName: "ré sumé.bin",
  });
  if (signed.ok) {
    // A plain fetch, no credentials: the URL carries its own proof. Its Content-Disposition is
    // hidden from this page (the Storage API exposes no header).
    const answer = await fetch(signed.value);
    out.signedUrl = {
      status: answer.status,
      same: same(new Uint8Array(await answer.arrayBuffer()), bytes),
      disposition: answer.headers.get("content-disposition"),
    };
  } else out.signedUrl = said(signed);
  // Replaced, then read again: the current bytes, not the answer read before.
  out.update = said(
    await st.update(bucket, "files/string.txt", "second version", { cacheControl: 3600 }),
  );
  const reread = await st.download(bucket, "files/string.txt");
  out.downloadAfterUpdate = reread.ok ? reread.value : said(reread);
  const rebytes = await st.downloadBytes(bucket, "files/string.txt");
  out.bytesAfterUpdate = rebytes.ok ? new TextDecoder().decode(rebytes.value) : said(rebytes);
  const listed = await st.list(bucket, { prefix: "files" });
  out.list = listed.ok ? listed.value.map((f) => f.name) : said(listed);
  const removed = await st.deleteObjects(bucket, ["files/bytes.bin", "files/blob.txt"]);
  out.removeMany = removed.ok ? removed.value.map((f) => f.name).sort() : said(removed);
  out.removeOne = said(await st.deleteObject(bucket, "files/string.txt"));
  const gone = await st.exists(bucket, "files/bytes.bin");
  out.existsAfter = gone.ok ? gone.value : said(gone);
  const after = await st.list(bucket, { prefix: "files" });
  out.listAfter = after.ok ? after.value.map((f) => f.name) : said(after);
  return out;
}
