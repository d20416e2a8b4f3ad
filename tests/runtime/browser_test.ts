/**
 * Browser: Debian's Chromium, headless, loads a page that runs PKCE
 * generation, local ES256 verification, a fetch to the local server and
 * resumable (TUS) uploads of bytes, a Blob and a stream in several chunks,
 * and posts its results back; the test downloads what the backend stored. Skipped only when Chromium is not installed
 * (.ci/run installs it).
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";

const root = new URL("../../", import.meta.url).pathname;
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name:
    "a headless Chromium page generates PKCE, verifies an ES256 token locally, fetches and uploads resumably",
  ignore: chromium === undefined,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "fetchbase-browser-" });
    const backend = await createLocalBackend();
    const bundle = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
      args: [
        `${root}tests/runtime/browser/page_entry.ts`,
        "--bundle",
        "--format=esm",
        "--platform=browser",
        `--outfile=${tmp}/page.js`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bundle.code, 0, new TextDecoder().decode(bundle.stderr));
    const script = await Deno.readTextFile(`${tmp}/page.js`);
    let deliver!: (r: Record<string, unknown>) => void;
    const reported = new Promise<Record<string, unknown>>((r) => (deliver = r));
    const server = await serve(async (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/page") {
        return new Response(
          `<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>`,
          {
            headers: { "content-type": "text/html" },
          },
        );
      }
      if (url.pathname === "/page.js") {
        return new Response(script, { headers: { "content-type": "text/javascript" } });
      }
      if (url.pathname === "/__report") {
        deliver(await req.json());
        return new Response("ok");
      }
      return backend.app.fetch(req);
    });
    // The backend again on another port: another origin for the page's resumable uploads.
    const api = await serve((req) => backend.app.fetch(req));
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
    const browser = new Deno.Command(chromium!, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        `--user-data-dir=${tmp}/profile`,
        "--remote-debugging-port=0",
        page,
      ],
      // Chromium's own temp files go inside ours.
      env: { TMPDIR: tmp },
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      const timeout = new Promise<never>((_, reject) => {
        const t = setTimeout(
          () => reject(new Error("no report from the page within 60 s")),
          60_000,
        );
        reported.finally(() => clearTimeout(t));
      });
      const report = await Promise.race([reported, timeout]) as {
        pkce: { verifierLength: number; method: string; challengeMatches: boolean };
        tampered: string;
        claims: { sub?: string; alg?: string; error?: string };
        health: { name?: string };
        uploads?: Record<string, {
          error: string | null;
          uploadUrl: string | null;
          progress: { bytesUploaded: number; totalBytes: number; isComplete: boolean };
          updates: number;
        }>;
        crash?: string;
      };
      assert.equal(report.crash, undefined);
      assert.equal(report.pkce.method, "S256");
      assert.ok(report.pkce.verifierLength >= 43);
      assert.equal(report.pkce.challengeMatches, true, "challenge = base64url(SHA-256(verifier))");
      assert.deepEqual(report.claims, { sub: session.user.id, alg: "ES256" });
      assert.equal(report.tampered, "invalid_signature", "a tampered signature is refused");
      assert.equal(report.health.name, "GoTrue");
      const expected = new Uint8Array(size);
      for (let i = 0; i < size; i++) expected[i] = (i * 7 + 3) % 251;
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
        const stored = await fetch(`${server.url}/storage/v1/object/browser/tus/${kind}.bin`, {
          headers: asUser,
        });
        assert.equal(stored.status, 200, kind);
        assert.deepEqual(new Uint8Array(await stored.arrayBuffer()), expected, kind);
      }
    } finally {
      await stopBrowser(browser);
      await server.close();
      await api.close();
      await removeSoon(tmp);
    }
  },
});

/**
 * Stops Chromium the way a user would (SIGTERM), so that it ends its helper
 * processes and removes its temp files; SIGKILL only if it does not exit
 * within 10 s.
 */
async function stopBrowser(browser: Deno.ChildProcess): Promise<void> {
  browser.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    browser.status.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 10_000))),
  ]);
  clearTimeout(timer);
  if (!exited) {
    browser.kill("SIGKILL");
    await browser.status;
  }
}

/**
 * Removes a directory that Chromium's helper processes may still be writing
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
