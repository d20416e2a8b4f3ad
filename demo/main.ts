/**
 * The fetchbase demo: one run through the library. With FETCHBASE_URL and
 * FETCHBASE_KEY set it talks to that project; otherwise it starts an
 * embedded local backend (a Hono app in this process with real ES256 keys,
 * a JWKS endpoint, in-memory storage with TUS, and tables) and says so.
 *
 * Run: `deno task demo` (or `npm run demo` on a machine with only Node).
 */

import { createClient } from "../mod.ts";
import { getClaims } from "../auth/mod.ts";
import { columns, selectWithCountTyped } from "../database/mod.ts";
import { createLocalBackend } from "./local_backend/mod.ts";

interface Todo {
  id: number;
  title: string;
  done: boolean;
  priority: number;
}

const out = (s: string) => console.log(s);
const step = (n: number, s: string) => out(`\n${n}. ${s}`);
const fail = (what: string, message: string): never => {
  console.error(`\n✗ ${what}: ${message}`);
  Deno.exit(1);
};

function bar(fraction: number): string {
  const width = 30;
  const full = Math.round(fraction * width);
  return `[${"#".repeat(full)}${".".repeat(width - full)}] ${
    (fraction * 100).toFixed(0).padStart(3)
  }%`;
}

async function main() {
  let url = Deno.env.get("FETCHBASE_URL");
  let key = Deno.env.get("FETCHBASE_KEY");
  let stop: (() => Promise<void>) | null = null;
  if (url && key) {
    out(`fetchbase demo against ${url}`);
  } else {
    const backend = await createLocalBackend();
    const ac = new AbortController();
    let listening!: (port: number) => void;
    const port = new Promise<number>((resolve) => (listening = resolve));
    const server = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        signal: ac.signal,
        onListen: (addr) => listening(addr.port),
      },
      backend.app.fetch,
    );
    url = `http://127.0.0.1:${await port}`;
    key = backend.apiKey;
    stop = async () => {
      ac.abort();
      await server.finished;
    };
    out(`FETCHBASE_URL and FETCHBASE_KEY are not set: using the embedded local backend at ${url}`);
    out("(GoTrue, Storage with TUS and PostgREST stand-ins, real ES256 keys and a JWKS endpoint)");
  }

  const client = createClient(url, key);
  const email = `demo-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery staple";

  step(1, `Sign up and sign in as ${email}`);
  const up = await client.auth.signUpWithEmail(email, password, { data: { source: "demo" } });
  if (!up.ok) fail("sign-up", up.error.message);
  const session = await client.auth.signInWithEmail(email, password);
  if (!session.ok) return fail("sign-in", session.error.message);
  client.setAccessToken(session.value.accessToken);
  out(
    `   signed in; session ${String(session.value).slice(0, 60)}… (tokens are masked when printed)`,
  );

  step(2, "Verify the access token locally against the JWKS");
  const claims = await getClaims(client.auth, session.value.accessToken);
  if (!claims.ok) return fail("getClaims", claims.error.message);
  out(
    `   ${claims.value.header.algorithm} token for subject ${claims.value.claims.subject}, aal ${claims.value.claims.authenticatorAssuranceLevel}`,
  );

  step(3, "Resumable upload (TUS) with progress");
  const bucket = "demo";
  const made = await client.storage.createBucket(bucket, bucket);
  if (!made.ok && made.error.category !== "CONFLICT") fail("create bucket", made.error.message);
  const size = 3 * 1024 * 1024 + 12_345;
  const data = new Uint8Array(size).map((_, i) => (i * 7) & 0xff);
  const upload = client.storage.createResumableUpload(
    bucket,
    `${claims.value.claims.subject}/report.bin`,
    new Blob([data]),
    {
      chunkSize: 512 * 1024,
      contentType: "application/octet-stream",
      upsert: true,
    },
  );
  const enc = new TextEncoder();
  const stopBar = upload.progress.subscribe((p) =>
    Deno.stdout.writeSync(enc.encode(`\r   ${bar(p.fraction)}`))
  );
  const done = await upload.await();
  stopBar();
  out("");
  if (!done.ok) fail("resumable upload", done.error.message);
  out(`   uploaded ${size} bytes in ${Math.ceil(size / (512 * 1024))} chunks`);

  step(4, "Signed URL and download");
  const path = `${claims.value.claims.subject}/report.bin`;
  const signed = await client.storage.createSignedUrl(bucket, path, 60);
  if (!signed.ok) return fail("signed URL", signed.error.message);
  const fetched = new Uint8Array(await (await fetch(signed.value)).arrayBuffer());
  const same = fetched.length === data.length && fetched.every((b, i) => b === data[i]);
  if (!same) fail("download", "downloaded bytes differ from the upload");
  out(`   signed URL works without credentials; ${fetched.length} bytes match`);

  step(5, "Table writes and a filtered, counted select");
  const todo = columns<Todo>();
  const rows = [
    { title: "Try fetchbase", done: true, priority: 1 },
    { title: "Write the edge function", done: false, priority: 3 },
    { title: "Ship it", done: false, priority: 2 },
  ];
  const inserted = await client.database.insert("todos", JSON.stringify(rows));
  if (!inserted.ok) fail("insert", inserted.error.message);
  const page = await selectWithCountTyped<Todo>(client.database, "todos", {
    columns: "id,title,priority",
    block: (q) =>
      q.where((w) => w.eq(todo.done, false).greaterEq(todo.priority, 2)).orderBy(todo.priority, {
        order: "desc",
      }),
  });
  if (!page.ok) return fail("select", page.error.message);
  out(
    `   ${page.value.count} open todos with priority >= 2: ${
      page.value.rows.map((r) => r.title).join(", ")
    }`,
  );

  step(6, "Sign out");
  const bye = await client.auth.signOut(session.value.accessToken);
  if (!bye.ok) fail("sign-out", bye.error.message);
  client.clearAccessToken();
  const refreshed = await client.auth.refreshToken(session.value.refreshToken);
  out(`   signed out; the old refresh token is ${refreshed.ok ? "still valid (!)" : "revoked"}`);

  out(
    "\nSummary: sign-up/in, local JWT verification, resumable upload, signed download, table writes and a counted select, sign-out — all OK.",
  );
  await stop?.();
}

if (import.meta.main) {
  await main().catch((e) => fail("demo", e instanceof Error ? e.message : String(e)));
}
