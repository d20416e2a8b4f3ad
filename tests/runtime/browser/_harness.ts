/**
 * The shared part of the browser runtime tests: bundles `page_entry.ts`, serves it with the local
 * backend (and the backend again on a second port, another origin: the project's URL, which the
 * page calls for everything, the backend answering CORS as the deployed services do), signs a
 * user up, launches a browser on the page, waits for its report and checks what every engine must
 * do (PKCE, local ES256 verification, a fetch, resumable uploads of bytes, a Blob and a stream,
 * downloaded and compared; then the main flows of `flows.ts`, each held to `FLOWS`: sessions over
 * `localStorage`, cancellation, OAuth URL and fragment import, database, storage). Each engine's
 * test then checks what it cannot do (`probes`). The browser is always stopped, every process it
 * started is gone and its temp directory (profile included) removed before the test ends.
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../../demo/local_backend/mod.ts";
import { serve } from "../../support/serve.ts";
import { ABORT, DATABASE, SESSIONS, SESSIONS_ACROSS, STORAGE } from "../flows/expected.ts";

const root = new URL("../../../", import.meta.url).pathname;

/** The first of `paths` that is a file, or undefined when the browser is not installed. */
export function installed(paths: string[]): string | undefined {
  return paths.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

/** One resumable upload as the page reports it. */
export interface UploadReport {
  error: string | null;
  uploadUrl: string | null;
  progress: { bytesUploaded: number; totalBytes: number; fraction: number; isComplete: boolean };
  updates: number;
}

/** What the page posts back. */
export interface PageReport {
  userAgent: string;
  pkce: { verifierLength: number; method: string; challengeMatches: boolean };
  tampered: string;
  claims: { sub?: string; alg?: string; error?: string };
  health: { name?: string };
  uploads?: Record<string, UploadReport>;
  /**
   * What an engine may not be able to do, each `"stored"` or the Failure as
   * `category: message`: `plainStream`, a plain upload (`upload`) of a
   * ReadableStream; `streamChunks`, a resumable upload of bytes with
   * `streamChunks: true` (each chunk sent as a one-piece stream).
   */
  probes?: { plainStream: string; frameStream: string; streamChunks: string };
  /** The results of `flows.ts`, by flow: each its own JSON, `{ error }` or `{ timedOut }`. */
  flows?: Record<string, Record<string, unknown>>;
  crash?: string;
}

/**
 * What every engine's page reports for the flows of `flows.ts` (see there and `../flows/` for each
 * step): what every runtime reports (`../flows/expected.ts`) and the page's own, on another origin
 * than the project's: a header the service does not expose is null. No engine differs: where one
 * did, the library was fixed (a download after an update came from the browser's HTTP cache in all
 * three; `storage/_fresh_reads.ts`).
 */
const FLOWS: Record<string, Record<string, unknown>> = {
  sessions: { ...SESSIONS, ...SESSIONS_ACROSS, userMetadata: { from: "page" } },
  abort: ABORT,
  oauth: {
    authorize: {
      path: "/auth/v1/authorize",
      provider: "github",
      redirectBack: true,
      scopes: "read:user user:email",
      challenge: true,
      method: "s256",
      prompt: "consent",
    },
    fragmentParsed: { type: "signup", providerToken: "p+q r" },
    wrongState: "oauth_state_mismatch",
    imported: { user: true, providerToken: "p+q r", applied: true, stored: true },
    addressBarClean: true,
  },
  database: {
    ...DATABASE,
    rollback: "CONFLICT: Cannot confirm the rollback",
    rollbackCommitted: true,
  },
  storage: {
    ...STORAGE,
    upload: { bytes: "ok", blob: "ok", string: "ok" },
    // Content-Range and Content-Disposition hidden: the Storage API exposes no header.
    rangeStream: { status: 206, contentRange: null, same: true },
    signedUrl: { status: 200, same: true, disposition: null },
    list: ["blob.txt", "bytes.bin", "string.txt"],
    removeMany: ["files/blob.txt", "files/bytes.bin"],
  },
  realms: {
    premise: true,
    hex: "01ab",
    pkce: true,
    plain: {
      bytes: { upload: "ok", same: true, type: "application/octet-stream" },
      buffer: { upload: "ok", same: true, type: "application/octet-stream" },
      blob: { upload: "ok", same: true, type: "text/plain" },
      file: { upload: "ok", same: true, type: "text/csv" },
    },
    resumable: { blob: { upload: "ok", same: true }, stream: { upload: "ok", same: true } },
  },
  worker: {
    inWorker: true,
    claims: "ES256",
    pkce: "S256",
    select: "ok",
    plain: "ok",
    resumable: "ok",
    streamBack: true,
    plainBack: true,
    type: "application/x-worker",
  },
};

/** A finished page run, for an engine's own checks. */
export interface PageRun {
  report: PageReport;
  /** The bytes every upload sent. */
  expected: Uint8Array;
  /** Downloads an object of the `browser` bucket as the signed-in user. */
  stored(path: string): Promise<Response>;
  /** The second origin the page uploaded to. */
  apiUrl: string;
}

/**
 * Starts a browser on `url`, with the processes it needs (a virtual display), the browser first:
 * they are stopped in that order. Everything they write goes inside `tmp` (profile, temp files);
 * their environment must carry `TMPDIR=<tmp>`, by which the harness finds any process of theirs
 * left behind.
 */
export type Launch = (url: string, tmp: string) => Promise<Deno.ChildProcess[]>;

/** Options of {@linkcode runPage}. */
export interface RunPageOptions {
  /** Prefix of the temp directory. */
  name: string;
  launch: Launch;
  /** The engine's own checks, run while the servers still answer. */
  check?: (run: PageRun) => Promise<void>;
  /** How long the page may take to report. Default 60 s. */
  reportWithinMs?: number;
}

/** Runs the page in a browser, checks the shared results, then the engine's own. */
export async function runPage(options: RunPageOptions): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: `fetchbase-${options.name}-` });
  let started: Deno.ChildProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    // A spent refresh token is never answered again: a tab that sent one would revoke the
    // session, as GoTrue does after its reuse interval (the page's second tab must not).
    // Every route answers CORS as the deployed services behind Supabase's gateway do: the page
    // calls the project on another origin.
    const backend = await createLocalBackend({ refreshReuseIntervalMs: 0, cors: "all" });
    const script = await bundle("page_entry.ts", tmp);
    const workerScript = await bundle("worker_entry.ts", tmp);
    // Held requests of the page's `__slow` table, answered only when the test ends.
    const held = new Set<() => void>();
    let deliver!: (r: PageReport) => void;
    const reported = new Promise<PageReport>((r) => (deliver = r));
    const server = await serve(async (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/page") {
        return new Response(
          `<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      if (url.pathname === "/page.js" || url.pathname === "/worker.js") {
        return new Response(url.pathname === "/page.js" ? script : workerScript, {
          headers: { "content-type": "text/javascript" },
        });
      }
      if (url.pathname === "/__report") {
        deliver(await req.json());
        return new Response("ok");
      }
      // A browser asks for its icon: answered without the backend.
      if (url.pathname === "/favicon.ico") return new Response(null, { status: 404 });
      return backend.app.fetch(req);
    });
    closers.push(() => server.close());
    // The backend again on another port: the project's URL, another origin than the page's.
    const api = await serve(async (req) => {
      if (new URL(req.url).pathname === "/rest/v1/__slow" && req.method !== "OPTIONS") {
        // A route that never answers (its preflight does): the cancellation flow gives up on it.
        await new Promise<void>((release) => held.add(release));
        return new Response(null, { status: 504 });
      }
      return backend.app.fetch(req);
    });
    closers.push(() => api.close());
    // Run before the servers close (closers run last first), which waits for its handlers.
    closers.push(() => {
      for (const release of held) release();
      return Promise.resolve();
    });
    const session = await fetch(`${server.url}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: backend.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "browser@example.test", password: "secret-pw" }),
    }).then((r) => r.json()) as { access_token: string; user: { id: string } };
    const asUser = { apikey: backend.apiKey, authorization: `Bearer ${session.access_token}` };
    const bucket = await fetch(`${server.url}/storage/v1/bucket`, {
      method: "POST",
      headers: { ...asUser, "content-type": "application/json" },
      body: JSON.stringify({ id: "browser" }),
    });
    assert.equal(bucket.status, 200, await bucket.text());
    const size = 64 * 1024 * 4 + 123; // four whole 64 KiB chunks and a tail
    const page = `${server.url}/page?key=${encodeURIComponent(backend.apiKey)}&token=${
      encodeURIComponent(session.access_token)
    }&size=${size}&api=${encodeURIComponent(api.url)}`;
    started = await options.launch(page, tmp);
    const limit = options.reportWithinMs ?? 60_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const report = await Promise.race([
      reported,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no report from the page within ${limit} ms`)),
          limit,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    assert.equal(report.crash, undefined);
    assert.equal(report.pkce.method, "S256");
    assert.ok(report.pkce.verifierLength >= 43);
    assert.equal(report.pkce.challengeMatches, true, "challenge = base64url(SHA-256(verifier))");
    assert.deepEqual(report.claims, { sub: session.user.id, alg: "ES256" });
    assert.equal(report.tampered, "invalid_signature", "a tampered signature is refused");
    assert.equal(report.health.name, "GoTrue");
    const expected = new Uint8Array(size);
    for (let i = 0; i < size; i++) expected[i] = (i * 7 + 3) % 251;
    const stored = (path: string) =>
      fetch(`${server.url}/storage/v1/object/browser/${path}`, { headers: asUser });
    for (const kind of ["bytes", "blob", "stream"]) {
      const up = report.uploads?.[kind];
      assert.ok(up, `${kind}: no upload reported`);
      assert.equal(up.error, null, kind);
      assert.ok(
        up.uploadUrl?.startsWith(`${api.url}/storage/v1/upload/resumable/`),
        `${kind}: ${up.uploadUrl}`,
      );
      assert.deepEqual(up.progress, {
        bytesUploaded: size,
        totalBytes: size,
        fraction: 1,
        isComplete: true,
      }, kind);
      // The first value, then one per accepted chunk at least (five requests).
      assert.ok(up.updates >= 5, `${kind}: ${up.updates} progress values`);
      const object = await stored(`tus/${kind}.bin`);
      assert.equal(object.status, 200, kind);
      assert.deepEqual(new Uint8Array(await object.arrayBuffer()), expected, kind);
    }
    for (const [name, expected] of Object.entries(FLOWS)) {
      assert.deepEqual(report.flows?.[name], expected, `flow ${name}`);
    }
    await options.check?.({ report, expected, stored, apiUrl: api.url });
  } finally {
    for (const child of started) await stop(child);
    if (started.length > 0) await noneLeft(tmp);
    for (const close of closers.reverse()) await close();
    await removeSoon(tmp);
  }
}

/** Bundles `entry` of this directory for the browser (esbuild, ESM) and returns the script. */
async function bundle(entry: string, tmp: string): Promise<string> {
  const out = `${tmp}/${entry.replace(/\.ts$/, ".js")}`;
  const built = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
    args: [
      `${root}tests/runtime/browser/${entry}`,
      "--bundle",
      "--format=esm",
      "--platform=browser",
      `--outfile=${out}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  return await Deno.readTextFile(out);
}

/**
 * Stops a process the way a user would (SIGTERM), so that a browser ends its helper processes and
 * removes its temp files; SIGKILL only if it does not exit within 10 s.
 */
async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    // already gone
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    child.status.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 10_000))),
  ]);
  clearTimeout(timer);
  if (!exited) {
    child.kill("SIGKILL");
    await child.status;
  }
}

/**
 * Waits up to 5 s for every process whose environment names `tmp` (a browser's helpers, its
 * content processes) to end, kills any left and fails: a browser that leaks a process fails its
 * test.
 */
async function noneLeft(tmp: string): Promise<void> {
  let left = processesOf(tmp);
  for (let attempt = 0; left.length > 0 && attempt < 50; attempt++) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesOf(tmp);
  }
  for (const pid of left) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // ended meanwhile
    }
  }
  assert.deepEqual(left, [], "processes of the browser still running after it exited");
}

/** The processes whose environment has `TMPDIR=<tmp>`: the browser's own, through /proc. */
function processesOf(tmp: string): number[] {
  const marker = new TextEncoder().encode(`\0TMPDIR=${tmp}\0`);
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let env: Uint8Array;
    try {
      env = Deno.readFileSync(`/proc/${entry.name}/environ`);
    } catch {
      continue; // ended, or another user's
    }
    const text = new Uint8Array(env.length + 1);
    text.set(env, 1); // a leading NUL, so that the first variable matches too
    if (indexOf(text, marker) >= 0) found.push(Number(entry.name));
  }
  return found;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Removes a directory that a browser's helper processes may still be writing
 * into for a moment after the browser exits: retried for up to 5 s.
 */
async function removeSoon(dir: string): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      return await Deno.remove(dir, { recursive: true });
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
