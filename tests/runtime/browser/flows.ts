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
import { generatePkceParams } from "../../../auth/pkce.ts";
import { generateOAuthState } from "../../../auth/oauth_state.ts";
import { signInWithOAuth } from "../../../auth/oauth_url.ts";
import { parseSessionTokensFromFragment } from "../../../auth/fragment.ts";
import { createSessionManager } from "../../../session/manager.ts";
import { KeyValueSessionStorage, webStorageStore } from "../../../session/storage.ts";
import { importSessionFromUrl } from "../../../session/extensions.ts";
import { encodeBase64Url, encodeHex } from "../../../core/encoding.ts";
import { createResumableUpload } from "../../../storage/tus.ts";
import { type Json, said, same } from "../flows/helpers.ts";
import { sessionsFlow } from "../flows/sessions.ts";
import { abortFlow } from "../flows/abort.ts";
import { databaseFlow, title } from "../flows/database.ts";
import { commonUploads, storageFlow } from "../flows/storage.ts";

// The page's History and document (Deno's types, which check this file, have no DOM).
declare const history: { replaceState(data: unknown, unused: string, url: string): void };
declare const Worker: new (url: string, options: { type: "module" }) => {
  onmessage: ((event: { data: Json }) => void) | null;
  onerror: ((event: { message: string }) => void) | null;
  postMessage(message: unknown): void;
  terminate(): void;
};
declare const document: {
  createElement(tag: "iframe"): { contentWindow: unknown; remove(): void };
  body: { append(node: unknown): void };
};

/** What the page knows: the project's URL, its API key and the signed-in test user's token. */
export interface FlowContext {
  api: string;
  key: string;
  token: string;
}

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
    realms,
    worker,
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

/**
 * The shared sessions flow (`../flows/sessions.ts`) over `localStorage` without auto-refresh, as
 * two tabs: after the second restored the session, the first rotates the token again and the
 * second refreshes after it (`refreshAcross`); the storage emptied before and after.
 */
async function sessions({ api, key }: FlowContext): Promise<Json> {
  localStorage.removeItem(SESSION_KEY);
  try {
    return await sessionsFlow({
      client: () => createClient(api, key),
      email: `page-${crypto.randomUUID().slice(0, 8)}@example.test`,
      password: "page-secret-pw",
      from: "page",
      storage: () => new KeyValueSessionStorage(webStorageStore(localStorage), SESSION_KEY),
      stored: () => Promise.resolve(localStorage.getItem(SESSION_KEY)),
      autoRefresh: false,
      refreshAcross: true,
    });
  } finally {
    localStorage.removeItem(SESSION_KEY);
  }
}

/**
 * The shared cancellation flow (`../flows/abort.ts`) with the browser's own `AbortSignal.timeout`,
 * timed by `performance.now()`.
 */
async function abort({ api, key, token }: FlowContext): Promise<Json> {
  return await abortFlow(createClient(api, key, { accessToken: token }), () => performance.now());
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

/**
 * The shared database flow (`../flows/database.ts`), then a write asked to roll back whose answer
 * cannot show it here.
 */
async function database({ api, key, token }: FlowContext): Promise<Json> {
  const client = createClient(api, key, { accessToken: token });
  const db = client.database;
  const out = await databaseFlow({
    client,
    anon: createClient(api, key),
    titles: ["write the page", "run three engines", "read the report"],
  });
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
 * The shared storage flow (`../flows/storage.ts`) with the uploads every runtime makes (a page
 * cannot upload a stream: see `page_entry.ts`'s probes), in the `browser` bucket. On another
 * origin a range stream's `Content-Range` and a signed URL's `Content-Disposition` are hidden
 * from the page (the Storage API exposes no header).
 */
async function storage({ api, key, token }: FlowContext): Promise<Json> {
  return await storageFlow({
    storage: createClient(api, key, { accessToken: token }).storage,
    bucket: "browser",
    uploads: commonUploads(),
  });
}

/**
 * Values made by another realm, a same-origin iframe's: none is an `instanceof` the page's
 * classes, though the browser's fetch and WebCrypto take them all. Its bytes, ArrayBuffer, Blob
 * and File uploaded plainly (read back, and stored with the Blob's type), its Blob and its stream
 * uploaded resumably in several chunks, its bytes through the encoders and a custom PKCE hash.
 */
async function realms({ api, key, token }: FlowContext): Promise<Json> {
  const frame = document.createElement("iframe");
  document.body.append(frame);
  try {
    const w = frame.contentWindow as typeof globalThis;
    const text = "from the frame ✓";
    const bytes = new w.TextEncoder().encode(text);
    const out: Json = {
      premise: !(bytes instanceof Uint8Array) && !(new w.Blob([]) instanceof Blob) &&
        !(new w.ReadableStream() instanceof ReadableStream),
      hex: encodeHex(new w.Uint8Array([1, 171])),
    };
    const pkce = await generatePkceParams({
      sha256: async (b) =>
        new w.Uint8Array(await crypto.subtle.digest("SHA-256", b as BufferSource)),
    });
    out.pkce = pkce.codeChallenge === encodeBase64Url(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pkce.codeVerifier)),
    );
    const client = createClient(api, key, { accessToken: token });
    const plain: Json = {};
    const sources: Record<string, unknown> = {
      bytes,
      buffer: new w.TextEncoder().encode(text).buffer,
      blob: new w.Blob([text], { type: "text/plain" }),
      file: new w.File([text], "f.csv", { type: "text/csv" }),
    };
    for (const [name, data] of Object.entries(sources)) {
      const path = `realms/${name}`;
      const r = await client.storage.upload("browser", path, data as Blob, { upsert: true });
      const back = await client.storage.downloadBytes("browser", path);
      const info = await client.storage.info("browser", path);
      plain[name] = {
        upload: said(r),
        same: back.ok && new TextDecoder().decode(back.value) === text,
        type: info.ok ? info.value.contentType : said(info),
      };
    }
    out.plain = plain;
    const data = new Uint8Array(2 * 64 * 1024 + 99).map((_, i) => (i * 11 + (i >> 8)) % 256);
    const resumable: Json = {};
    const kinds: Record<string, () => Blob | ReadableStream<Uint8Array>> = {
      blob: () => new w.Blob([data]),
      stream: () => new w.Blob([data]).stream(),
    };
    for (const [name, make] of Object.entries(kinds)) {
      const path = `realms/tus-${name}.bin`;
      try {
        const r = await createResumableUpload(client, "browser", path, make(), {
          chunkSize: 64 * 1024,
          maxAttempts: 1,
          upsert: true,
        }).await();
        const back = await client.storage.downloadBytes("browser", path);
        resumable[name] = { upload: said(r), same: back.ok && same(back.value, data) };
      } catch (e) {
        resumable[name] = `threw ${e instanceof Error ? `${e.name}: ${e.message}` : e}`;
      }
    }
    out.resumable = resumable;
    return out;
  } finally {
    frame.remove();
  }
}

/**
 * The library in a dedicated Web Worker (`worker_entry.ts`, served as `/worker.js`), where an app
 * moves its uploads off the main thread: a File from the page, structured-cloned into the worker,
 * uploaded plainly and resumably and read back; local verification, PKCE and a select there too.
 */
async function worker({ api, key, token }: FlowContext): Promise<Json> {
  const data = new Uint8Array(3 * 64 * 1024 + 7).map((_, i) => (i * 5 + 1) % 256);
  const file = new File([data], "w.bin", { type: "application/x-worker" });
  const w = new Worker("/worker.js", { type: "module" });
  try {
    return await new Promise<Json>((resolve, reject) => {
      w.onmessage = (event) => resolve(event.data);
      w.onerror = (event) => reject(new Error(`the worker failed: ${event.message}`));
      w.postMessage({ api, key, token, file });
    });
  } finally {
    w.terminate();
  }
}
