/**
 * Measures minified + gzipped bundle sizes with esbuild (from npm) for
 * fetchbase entry points and the supabase-js packages, in the same run, and
 * prints a Markdown table (also written to bench/results/size.md and into
 * the size section of bench/README.md).
 *
 * Run: deno task size
 */

import { replaceSection } from "./_readme_section.ts";

const root = new URL("..", import.meta.url).pathname;
// Entry files live inside the project so esbuild resolves the npm anchors from node_modules.
const tmp = await Deno.makeTempDir({ dir: root, prefix: ".size-" });

const entries: Record<string, string> = {
  "(a) fetchbase, everything": `export * from "${root}mod.ts";`,
  "(b) fetchbase auth getClaims (auth client + getClaims)":
    `import { createBaseClient } from "${root}core/client.ts"; import { createAuthClient } from "${root}auth/client.ts"; import { getClaims } from "${root}auth/get_claims.ts"; export { createBaseClient, createAuthClient, getClaims };`,
  "(c) fetchbase database client + DSL + typed":
    `import { createBaseClient } from "${root}core/client.ts"; export { createDatabaseClient } from "${root}database/client.ts"; export { column, columns } from "${root}database/column.ts"; export { selectTyped, selectSingleTyped, selectWithCountTyped, insertTyped, updateTyped, deleteTyped } from "${root}database/typed.ts"; export { rpcTyped } from "${root}database/rpc_typed.ts"; export { createBaseClient };`,
  "(b') fetchbase verify-only (createClaimsVerifier + getClaims)":
    `import { createBaseClient } from "${root}core/client.ts"; import { createClaimsVerifier, getClaims } from "${root}auth/get_claims.ts"; export { createBaseClient, createClaimsVerifier, getClaims };`,
  "(d) fetchbase storage upload + signed URLs + resumable (storage/objects functions)":
    `import { createBaseClient } from "${root}core/client.ts"; export { upload, update, uploadToSignedUrl, createSignedUrl, createSignedUrls, createSignedUploadUrl, getSignedDownloadUrl } from "${root}storage/objects.ts"; import { createResumableUpload, uploadResumable } from "${root}storage/tus.ts"; export { createBaseClient, createResumableUpload, uploadResumable };`,
  "(d, whole client) fetchbase StorageClient class + resumable":
    `import { createBaseClient } from "${root}core/client.ts"; import { createStorageClient } from "${root}storage/client.ts"; import { createResumableUpload } from "${root}storage/tus.ts"; export { createBaseClient, createStorageClient, createResumableUpload };`,
  // Not a target: what an app imports for a client of all three services with sessions, beside
  // supabase-js's own createClient (which also brings realtime and functions).
  "(e) fetchbase createClient + createSessionManager (an app's client)":
    `export { createClient } from "${root}client.ts"; export { createSessionManager } from "${root}session/manager.ts";`,
  "@supabase/supabase-js createClient": `export { createClient } from "@supabase/supabase-js";`,
  "@supabase/supabase-js": `export * from "@supabase/supabase-js";`,
  "@supabase/auth-js": `export * from "@supabase/auth-js";`,
  "@supabase/storage-js": `export * from "@supabase/storage-js";`,
  "@supabase/postgrest-js": `export * from "@supabase/postgrest-js";`,
  "@supabase/functions-js": `export * from "@supabase/functions-js";`,
  "@supabase/realtime-js": `export * from "@supabase/realtime-js";`,
  "tus-js-client": `export * from "tus-js-client";`,
  "jose (jwtVerify + createRemoteJWKSet)": `export { jwtVerify, createRemoteJWKSet } from "jose";`,
};

async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return (await new Response(stream).arrayBuffer()).byteLength;
}

const sizes: Record<string, { min: number; gz: number } | null> = {};
let i = 0;
for (const [name, code] of Object.entries(entries)) {
  const file = `${tmp}/e${i++}.ts`;
  await Deno.writeTextFile(file, code);
  const out = `${file}.js`;
  const r = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
    args: [
      file,
      "--bundle",
      "--minify",
      "--format=esm",
      "--platform=browser",
      "--log-level=error",
      `--outfile=${out}`,
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (r.code !== 0) {
    sizes[name] = null;
    continue;
  }
  const bytes = await Deno.readFile(out);
  sizes[name] = { min: bytes.length, gz: await gzipSize(bytes) };
}
await Deno.remove(tmp, { recursive: true });

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const gz = (name: string) => sizes[name]?.gz ?? NaN;
const anchorsAll = gz("@supabase/auth-js") + gz("@supabase/storage-js") + gz("tus-js-client") +
  gz("@supabase/postgrest-js");
const anchorsStorage = gz("@supabase/storage-js") + gz("tus-js-client");
const rows = Object.entries(sizes).map(([name, s]) =>
  `| ${name} | ${s ? kib(s.min) : "n/a"} | ${s ? kib(s.gz) : "n/a"} |`
);
const targets = [
  [
    "(a) <= half of auth-js + storage-js + tus-js-client + postgrest-js",
    gz("(a) fetchbase, everything"),
    anchorsAll / 2,
  ],
  [
    "(b') <= 10 KiB (verify-only path)",
    gz("(b') fetchbase verify-only (createClaimsVerifier + getClaims)"),
    10 * 1024,
  ],
  [
    "(c) <= postgrest-js",
    gz("(c) fetchbase database client + DSL + typed"),
    gz("@supabase/postgrest-js"),
  ],
  [
    "(d) <= half of storage-js + tus-js-client",
    gz("(d) fetchbase storage upload + signed URLs + resumable (storage/objects functions)"),
    anchorsStorage / 2,
  ],
] as const;
const targetRows = targets.map(([label, value, limit]) =>
  `| ${label} | ${kib(value)} (${value} B) | ${kib(limit)} (${Math.floor(limit)} B) | ${
    value <= limit ? "met" : "not met"
  } |`
);
const table = [
  "## Bundle size (esbuild, minified, gzip; measured in the same run)",
  "",
  "| Entry | Minified | Gzipped |",
  "| --- | --- | --- |",
  ...rows,
  "",
  "| Target | fetchbase | Limit | |",
  "| --- | --- | --- | --- |",
  ...targetRows,
  "",
].join("\n");
console.log(table);
await Deno.writeTextFile(`${root}bench/results/size.md`, table);
// The tables, without their heading, into bench/README.md.
await replaceSection(`${root}bench/README.md`, "size", table.slice(table.indexOf("| Entry")));
