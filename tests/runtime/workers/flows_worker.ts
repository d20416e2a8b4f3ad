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
import { getClaims } from "../../../auth/get_claims.ts";
import type { ClientOptions } from "../../../core/client.ts";
import { createSessionManager } from "../../../session/manager.ts";
import { KeyValueSessionStorage, namespaceStore } from "../../../session/storage.ts";
import { signUpWithEmail } from "../../../session/client_sign_in.ts";
import { getClaimsForCurrentSession, signOutCurrentSession } from "../../../session/extensions.ts";
import { type Json, said } from "../flows/helpers.ts";
import { refreshTokenOf, sessionsFlow, state } from "../flows/sessions.ts";
import { abortFlow } from "../flows/abort.ts";
import { databaseFlow } from "../flows/database.ts";
import { BYTES, commonUploads, storageFlow } from "../flows/storage.ts";

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

/** What a flow gets: the bindings, the request's query and body, the client options to use. */
interface FlowContext {
  env: Env;
  q: URLSearchParams;
  request: Request;
  options: ClientOptions;
}

/** The stored session's refresh token in KV, or null. */
async function storedRefreshToken(env: Env, key: string): Promise<string | null> {
  return refreshTokenOf(await env.SESSIONS.get(key));
}

const storageOf = (env: Env, key: string) =>
  new KeyValueSessionStorage(namespaceStore(env.SESSIONS), key);

/**
 * The shared sessions flow (`../flows/sessions.ts`) over a KV entry, the managers with
 * auto-refresh on (their timers armed inside the request).
 */
async function sessions({ env, q, options }: FlowContext): Promise<Json> {
  const key = `session:${q.get("id")}`;
  return await sessionsFlow({
    client: () => createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options),
    email: `worker-${q.get("id")}@example.test`,
    password: "worker-secret-pw",
    from: "worker",
    storage: () => storageOf(env, key),
    stored: () => env.SESSIONS.get(key),
    autoRefresh: true,
    refreshAcross: false,
  });
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

/** The shared cancellation flow (`../flows/abort.ts`), timed by `Date.now()`. */
async function abort({ env, q, options }: FlowContext): Promise<Json> {
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
    ...options,
    accessToken: q.get("token")!,
  });
  return await abortFlow(client, () => Date.now());
}

/**
 * Downloads from a server that sends its headers, then nothing (`__stall`): a client whose timeout
 * is 500 ms ends each with TIMEOUT about then, for bytes and text (the body is read here, its
 * pauses timed), whatever the compatibility date keeps `body` on.
 */
async function stall({ env, q, options }: FlowContext): Promise<Json> {
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
    ...options,
    accessToken: q.get("token")!,
    timeout: 500,
  });
  const out: Json = {};
  for (const kind of ["bytes", "text"] as const) {
    const started = Date.now();
    const r = kind === "bytes"
      ? await client.storage.downloadBytes("b", "__stall")
      : await client.storage.download("b", "__stall");
    out[kind] = r.ok
      ? "ok"
      : { category: r.error.category, withinMs: Date.now() - started < 3_000 };
  }
  return out;
}

/** The shared database flow (`../flows/database.ts`). */
async function database({ env, q, options }: FlowContext): Promise<Json> {
  return await databaseFlow({
    client: createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
      ...options,
      accessToken: q.get("token")!,
    }),
    anon: createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, options),
    titles: ["deploy the worker", "run two dates", "read the logs"],
  });
}

/** The bytes the test posts as the storage flow's request body. */
function bodyBytes(size: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + 3) % 251;
  return b;
}

/**
 * The shared storage flow (`../flows/storage.ts`) in the bucket `?bucket=`, with the uploads
 * every runtime makes and, as streams, the request's own body (first), a Blob's stream and a
 * TransformStream's readable, each downloaded back and compared.
 */
async function storage({ env, q, request, options }: FlowContext): Promise<Json> {
  const client = createClient(env.FETCHBASE_URL, env.FETCHBASE_KEY, {
    ...options,
    accessToken: q.get("token")!,
  });
  const piped = new TransformStream<Uint8Array, Uint8Array>();
  const writer = piped.writable.getWriter();
  writer.write(BYTES.subarray(0, 1000)).then(() => writer.write(BYTES.subarray(1000)))
    .then(() => writer.close());
  return await storageFlow({
    storage: client.storage,
    bucket: q.get("bucket")!,
    uploads: {
      body: {
        path: "files/body.bin",
        data: request.body!,
        readBack: bodyBytes(Number(q.get("size"))),
      },
      ...commonUploads(),
      blobStream: {
        path: "files/blob-stream.bin",
        data: new Blob([BYTES]).stream(),
        readBack: BYTES,
      },
      pipe: { path: "files/pipe.bin", data: piped.readable, readBack: BYTES },
    },
  });
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

/** What the Worker's global scope has of Node's (`nodejs_compat` adds `process` and `Buffer`). */
function runtime(): Promise<Json> {
  const g = globalThis as {
    process?: { versions?: { node?: string } };
    Buffer?: unknown;
    navigator?: { userAgent?: string };
  };
  return Promise.resolve({
    node: typeof g.process?.versions?.node === "string",
    buffer: typeof g.Buffer === "function",
    // No `navigator` before 2022-03-21.
    userAgent: g.navigator?.userAgent ?? null,
  });
}

const flows: Record<string, (c: FlowContext) => Promise<Json>> = {
  runtime,
  sessions,
  save,
  peek,
  restore,
  autoRefresh,
  abort,
  stall,
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
