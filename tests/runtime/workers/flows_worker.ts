/**
 * A Worker for the runtime test of the library's main flows in workerd
 * (`tests/runtime/workers_flows_test.ts`): each request runs one flow against the local backend
 * at `FETCHBASE_URL` and answers its results as JSON (each step `"ok"`, a value, or the Failure as
 * `category: message`). `?flow=` names it: `sessions` (sign-up and sign-in through the client
 * helpers, a `SessionManager` over the Workers KV namespace `SESSIONS`, a refresh, a second
 * manager restoring from the same KV, claims checked locally and by the server, sign-out clearing
 * the KV), `save` then `restore` (a session saved by one request and restored by the next),
 * `peek` (the refresh token in KV), `autoRefresh` (the manager's timer refreshing a short-lived
 * token inside the request, against the backend at `short`), `abort`, `database`, `storage` (a
 * POST, whose body it uploads as a stream) and `verify` (a client kept at module scope across
 * requests, verifying the caller's token locally). With `fetch=own` every client is given
 * workerd's own `fetch` (`{ fetch }`), else it reads the global one at call time.
 */
import { createClient } from "../../../client.ts";
import { createAuthClient } from "../../../auth/client.ts";
import { getClaims } from "../../../auth/get_claims.ts";
import type { ClientOptions } from "../../../core/client.ts";
import {
  createSessionManager,
  type SessionManager,
  type SessionState,
} from "../../../session/manager.ts";
import { KeyValueSessionStorage, namespaceStore } from "../../../session/storage.ts";
import { signInWithEmail, signOut, signUpWithEmail } from "../../../session/client_sign_in.ts";
import {
  getClaimsForCurrentSession,
  getUserForCurrentSession,
  signOutCurrentSession,
} from "../../../session/extensions.ts";
import { column } from "../../../database/column.ts";
import { insertTyped, selectTyped } from "../../../database/typed.ts";

interface Env {
  FETCHBASE_URL: string;
  FETCHBASE_KEY: string;
  /** Workers KV, as workerd binds it (the parts used here). */
  SESSIONS: {
    get(key: string): Promise<string | null>;
    put(key: string, value: string): Promise<void>;
    delete(key: string): Promise<void>;
  };
}

type Json = Record<string, unknown>;

/** What a flow gets: the bindings, the request's query and body, the client options to use. */
interface FlowContext {
  env: Env;
  q: URLSearchParams;
  request: Request;
  options: ClientOptions;
}

/** A result as `ok` or `category: message`. */
const said = (r: { ok: boolean; error?: { category: string; message: string } }) =>
  r.ok ? "ok" : `${r.error!.category}: ${r.error!.message}`;

/** The kind of the manager's state. */
const state = (m: SessionManager): SessionState["kind"] => m.sessionState.value.kind;

/** The stored session's refresh token in KV, or null. */
async function storedRefreshToken(env: Env, key: string): Promise<string | null> {
  const text = await env.SESSIONS.get(key);
  return text === null ? null : JSON.parse(text).refreshToken ?? null;
}

const storageOf = (env: Env, key: string) =>
  new KeyValueSessionStorage(namespaceStore(env.SESSIONS), key);

/**
 * Sign-up and sign-in through the client helpers, a manager over KV with auto-refresh on (its
 * timer armed inside the request), an explicit refresh, a second manager restoring the same KV
 * entry, claims verified locally (ES256 via the JWKS) and by the server, an unsigned token
 * refused, sign-out clearing the KV entry.
 */
async function sessions({ env, q, options }: FlowContext): Promise<Json> {
  const key = `session:${q.get("id")}`;
  const email = `worker-${q.get("id")}@example.test`;
  const password = "worker-secret-pw";
  const out: Json = {};
  const client1 = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options);
  const up = await signUpWithEmail(client1, email, password, { data: { from: "worker" } });
  out.signUp = said(up);
  out.signUpApplied = up.ok && client1.accessToken === up.value.accessToken;
  client1.clearAccessToken();
  const signedIn = await signInWithEmail(client1, email, password);
  if (!signedIn.ok) return { ...out, signIn: said(signedIn) };
  out.signIn = "ok";
  out.signInApplied = client1.accessToken === signedIn.value.accessToken;
  out.userMetadata = signedIn.value.user.userMetadata;
  const userId = signedIn.value.user.id;

  const m1 = createSessionManager(client1.auth, client1, { storage: storageOf(env, key) });
  const events1: string[] = [];
  const stop1 = m1.onAuthStateChange((e) => void events1.push(e));
  try {
    out.initialize = said(await m1.initialize()); // nothing stored yet
    await m1.saveSession(signedIn.value);
    out.storedAfterSave = (await storedRefreshToken(env, key)) === signedIn.value.refreshToken;
    const refreshed = await m1.refreshSession();
    out.refresh = said(refreshed);
    const r1 = refreshed.ok ? refreshed.value.refreshToken : "";
    out.refreshRotated = refreshed.ok && r1 !== signedIn.value.refreshToken;
    out.refreshApplied = refreshed.ok && client1.accessToken === refreshed.value.accessToken;
    out.storedAfterRefresh = (await storedRefreshToken(env, key)) === r1;

    // A second manager with its own client, over the same KV entry.
    const client2 = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options);
    const auth2 = createAuthClient(client2);
    const m2 = createSessionManager(auth2, client2, { storage: storageOf(env, key) });
    const events2: string[] = [];
    const stop2 = m2.onAuthStateChange((e) => void events2.push(e), {
      emitInitialSession: false,
    });
    try {
      const restored = await m2.restoreSession();
      out.restore = said(restored);
      out.restoredSameSession = restored.ok && restored.value.refreshToken === r1 &&
        restored.value.user.id === userId && client2.accessToken === restored.value.accessToken;
      const token = m2.accessToken ?? "";
      const local = await getClaims(auth2, token);
      out.claimsLocal = local.ok
        ? { sub: local.value.claims.subject === userId, alg: local.value.header.algorithm }
        : said(local);
      const held = await getClaimsForCurrentSession(m2, auth2, {
        expectedAudience: "authenticated",
      });
      out.claimsCurrentSession = held.ok ? held.value.claims.subject === userId : said(held);
      const user = await getUserForCurrentSession(auth2, m2);
      out.serverUser = user.ok
        ? user.value.id === userId && user.value.email === email
        : said(user);
      const [, payload] = token.split(".");
      const none = await getClaims(auth2, `eyJhbGciOiJub25lIn0.${payload}.`);
      out.unsigned = none.ok ? "accepted" : none.error.code;

      const bye = await signOutCurrentSession(auth2, m2);
      out.signOut = said(bye);
      out.kvAfterSignOut = await env.SESSIONS.get(key);
      out.m2AfterSignOut = { state: state(m2), token: client2.accessToken };
      const read = await m1.restoreSession();
      out.m1Restore = said(read);
      out.m1AfterSignOut = { state: state(m1), token: client1.accessToken };
      const dead = await client1.auth.refreshToken(r1);
      out.refreshAfterSignOut = dead.ok ? "ok" : dead.error.code;
      out.events2 = events2;
    } finally {
      stop2();
      m2.dispose();
    }
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

/**
 * The first of two requests: signs up and saves the session in KV through a manager with
 * auto-refresh on, disposed before the response as an app should. With `short` (the backend of
 * short-lived tokens) the manager is left undisposed, its refresh timer armed (due within about
 * a second) as the response goes, and the saved refresh token is answered.
 */
async function save({ env, q, options }: FlowContext): Promise<Json> {
  const key = `session:${q.get("id")}`;
  const email = `worker-${q.get("id")}@example.test`;
  const short = q.get("short");
  const client = createClient(short ?? env.FETCHBASE_URL, env.FETCHBASE_KEY, options);
  const up = await signUpWithEmail(client, email, "worker-secret-pw");
  if (!up.ok) return { signUp: said(up) };
  const m = createSessionManager(client.auth, client, {
    storage: storageOf(env, key),
    refreshBufferSeconds: 1,
  });
  await m.saveSession(up.value);
  const saved = (await storedRefreshToken(env, key)) === up.value.refreshToken;
  if (short === null) {
    m.dispose();
    return { saved };
  }
  return { saved, refreshToken: up.value.refreshToken };
}

/** The refresh token stored in KV under the key of `id`. */
async function peek({ env, q }: FlowContext): Promise<Json> {
  return { refreshToken: await storedRefreshToken(env, `session:${q.get("id")}`) };
}

/** The second: restores the saved session from KV, refreshes it, signs out, the KV entry gone. */
async function restore({ env, q, options }: FlowContext): Promise<Json> {
  const key = `session:${q.get("id")}`;
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options);
  const m = createSessionManager(client.auth, client, { storage: storageOf(env, key) });
  const out: Json = {};
  try {
    const restored = await m.restoreSession();
    out.restore = said(restored);
    out.applied = restored.ok && client.accessToken === restored.value.accessToken;
    const local = await getClaimsForCurrentSession(m, client.auth);
    out.claims = local.ok ? local.value.header.algorithm : said(local);
    const refreshed = await m.refreshSession();
    out.refresh = said(refreshed);
    out.storedAfterRefresh = refreshed.ok &&
      (await storedRefreshToken(env, key)) === refreshed.value.refreshToken;
    out.signOut = said(await signOutCurrentSession(client.auth, m));
    out.kvAfterSignOut = await env.SESSIONS.get(key);
    out.state = state(m);
  } finally {
    m.dispose();
  }
  return out;
}

/**
 * Auto-refresh inside the request: a session of a short-lived token (the backend at `short`)
 * saved with `refreshBufferSeconds: 1` is refreshed by the manager's own timer while the request
 * waits for it, and the new session lands in KV.
 */
async function autoRefresh({ env, q, options }: FlowContext): Promise<Json> {
  const key = `session:${q.get("id")}`;
  const client = createClient(q.get("short")!, env.FETCHBASE_KEY, options);
  const up = await client.auth.signUpWithEmail(
    `worker-${q.get("id")}@example.test`,
    "worker-secret-pw",
  );
  if (!up.ok) return { signUp: said(up) };
  const m = createSessionManager(client.auth, client, {
    storage: storageOf(env, key),
    refreshBufferSeconds: 1,
  });
  const out: Json = {};
  try {
    const started = Date.now();
    const refreshed = new Promise<string>((resolve) => {
      m.onAuthStateChange((e) => {
        if (e === "TOKEN_REFRESHED") resolve(e);
      }, { emitInitialSession: false });
    });
    await m.saveSession(up.value);
    let timer: ReturnType<typeof setTimeout> | undefined;
    out.event = await Promise.race([
      refreshed,
      new Promise<string>((r) => (timer = setTimeout(() => r("none within 6 s"), 6_000))),
    ]).finally(() => clearTimeout(timer));
    out.afterMs = Date.now() - started;
    const current = m.currentSession;
    out.rotated = current !== null && current.refreshToken !== up.value.refreshToken;
    out.stored = current !== null &&
      (await storedRefreshToken(env, key)) === current.refreshToken;
    out.applied = current !== null && client.accessToken === current.accessToken;
  } finally {
    m.dispose();
    await env.SESSIONS.delete(key);
  }
  return out;
}

/**
 * Cancellation: a call with a long `AbortSignal.timeout` completes; one to a route that never
 * answers ends `CANCELLED` with the signal's `TimeoutError` as cause; the `timeout` option ends
 * it `TIMEOUT`.
 */
async function abort({ env, q, options }: FlowContext): Promise<Json> {
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
    ...options,
    accessToken: q.get("token")!,
  });
  const out: Json = {};
  out.longSignal = said(await client.auth.getHealth({ signal: AbortSignal.timeout(5_000) }));
  let started = Date.now();
  const slow = await client.database.select("__slow", { signal: AbortSignal.timeout(300) });
  out.signalTimeout = slow.ok ? "ok" : {
    category: slow.error.category,
    cause: (slow.error.cause as { name?: string } | undefined)?.name ?? null,
    withinMs: Date.now() - started < 3_000,
  };
  started = Date.now();
  const timed = await client.database.select("__slow", { timeout: 300 });
  out.optionTimeout = timed.ok
    ? "ok"
    : { category: timed.error.category, withinMs: Date.now() - started < 3_000 };
  return out;
}

interface Todo {
  id: number;
  title: string;
  done: boolean;
  priority: number;
}

/** Rows written and read back with the DSL (filters, order, range), typed, and counted (HEAD). */
async function database({ env, q, options }: FlowContext): Promise<Json> {
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
    ...options,
    accessToken: q.get("token")!,
  });
  const db = client.database;
  const table = "todos";
  const out: Json = {};
  const title = column<string>("title");
  const done = column<boolean>("done");
  const priority = column<number>("priority");
  const rows = [
    { title: "deploy the worker", done: true, priority: 1 },
    { title: "café & co, (ü) 100%", done: false, priority: 3 },
    { title: "run two dates", done: false, priority: 2 },
    { title: "read the logs", done: false, priority: 5 },
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
  const odd = await db.select(table, {
    columns: "title",
    block: (q) => q.where((w) => w.eq(title, "café & co, (ü) 100%")),
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
  const anon = await createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options).database
    .select(table);
  out.anonRows = anon.ok ? JSON.parse(anon.value).length : said(anon);
  return out;
}

/** The bytes the test posts as the storage flow's request body. */
function bodyBytes(size: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + 3) % 251;
  return b;
}

/**
 * Plain uploads of bytes, a Blob, a string, a Blob's stream, a TransformStream's readable and
 * the request's own body; downloads as text, bytes and a stream; ranges; a signed URL fetched
 * back; an update then downloads (the new bytes); list and removal.
 */
async function storage({ env, q, request, options }: FlowContext): Promise<Json> {
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
    ...options,
    accessToken: q.get("token")!,
  });
  const st = client.storage;
  const bucket = q.get("bucket")!;
  const out: Json = {};
  const bytes = new Uint8Array(3000).map((_, i) => (i * 13 + 5) % 256);
  const text = "héllo ✓ string\n";
  const blobText = "blob: ünïcode\n";
  const piped = new TransformStream<Uint8Array, Uint8Array>();
  const writer = piped.writable.getWriter();
  writer.write(bytes.subarray(0, 1000)).then(() => writer.write(bytes.subarray(1000)))
    .then(() => writer.close());
  out.upload = {
    body: said(await st.upload(bucket, "files/body.bin", request.body!)),
    bytes: said(await st.upload(bucket, "files/bytes.bin", bytes)),
    blob: said(
      await st.upload(bucket, "files/blob.txt", new Blob([blobText], { type: "text/plain" })),
    ),
    string: said(
      await st.upload(bucket, "files/string.txt", text, {
        contentType: "text/plain; charset=utf-8",
        cacheControl: 3600,
      }),
    ),
    blobStream: said(
      await st.upload(bucket, "files/blob-stream.bin", new Blob([bytes]).stream()),
    ),
    pipe: said(await st.upload(bucket, "files/pipe.bin", piped.readable)),
  };
  const same = (a: Uint8Array, b: Uint8Array) =>
    a.length === b.length && a.every((v, i) => v === b[i]);
  const back = async (path: string, expected: Uint8Array) => {
    const r = await st.downloadBytes(bucket, path);
    return r.ok ? same(r.value, expected) : said(r);
  };
  out.uploadedBack = {
    body: await back("files/body.bin", bodyBytes(Number(q.get("size")))),
    blobStream: await back("files/blob-stream.bin", bytes),
    pipe: await back("files/pipe.bin", bytes),
  };
  const asText = await st.download(bucket, "files/string.txt");
  out.downloadText = asText.ok ? asText.value === text : said(asText);
  const blobBack = await st.download(bucket, "files/blob.txt");
  out.downloadBlob = blobBack.ok ? blobBack.value === blobText : said(blobBack);
  const info = await st.info(bucket, "files/blob.txt");
  out.blobInfo = info.ok ? { size: info.value.size, type: info.value.contentType } : said(info);
  out.downloadBytes = await back("files/bytes.bin", bytes);
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
    const answer = await fetch(signed.value);
    out.signedUrl = {
      status: answer.status,
      same: same(new Uint8Array(await answer.arrayBuffer()), bytes),
      disposition: answer.headers.get("content-disposition"),
    };
  } else out.signedUrl = said(signed);
  out.update = said(
    await st.update(bucket, "files/string.txt", "second version", { cacheControl: 3600 }),
  );
  const reread = await st.download(bucket, "files/string.txt");
  out.downloadAfterUpdate = reread.ok ? reread.value : said(reread);
  const rebytes = await st.downloadBytes(bucket, "files/string.txt");
  out.bytesAfterUpdate = rebytes.ok ? new TextDecoder().decode(rebytes.value) : said(rebytes);
  const listed = await st.list(bucket, { prefix: "files" });
  out.list = listed.ok ? listed.value.map((f) => f.name) : said(listed);
  const removed = await st.deleteObjects(bucket, [
    "files/bytes.bin",
    "files/blob.txt",
    "files/body.bin",
    "files/blob-stream.bin",
    "files/pipe.bin",
  ]);
  out.removeMany = removed.ok ? removed.value.length : said(removed);
  out.removeOne = said(await st.deleteObject(bucket, "files/string.txt"));
  const gone = await st.exists(bucket, "files/bytes.bin");
  out.existsAfter = gone.ok ? gone.value : said(gone);
  const after = await st.list(bucket, { prefix: "files" });
  out.listAfter = after.ok ? after.value.map((f) => f.name) : said(after);
  return out;
}

/**
 * One client kept at module scope across requests (built at the first, which has the bindings),
 * as a Worker keeps its verifier: each request verifies its caller's token locally. Requests that
 * arrive together while the JWKS is not yet known share its fetch.
 */
let kept: ReturnType<typeof createClient> | undefined;
async function verify({ env, request, options }: FlowContext): Promise<Json> {
  kept ??= createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options);
  const token = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "");
  const r = await getClaims(kept.auth, token);
  return r.ok ? { alg: r.value.header.algorithm, sub: r.value.claims.subject } : { error: said(r) };
}

const flows: Record<string, (c: FlowContext) => Promise<Json>> = {
  sessions,
  save,
  peek,
  restore,
  autoRefresh,
  abort,
  database,
  storage,
  verify,
};

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const q = new URL(request.url).searchParams;
    const flow = flows[q.get("flow") ?? ""];
    if (flow === undefined) return Response.json({ error: "no such flow" }, { status: 404 });
    // workerd's own fetch handed in as an app writes it; it refuses any `this` but its global.
    const options: ClientOptions = q.get("fetch") === "own" ? { fetch } : {};
    try {
      return Response.json(await flow({ env, q, request, options }));
    } catch (e) {
      return Response.json({ error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  },
};
