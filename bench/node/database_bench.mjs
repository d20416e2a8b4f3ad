// @ts-nocheck -- runs under Node, not type-checked by Deno.
// Node runner for the database benchmark: bundles bench/_database_candidates.ts
// (the same candidates as bench/database_bench.ts) with esbuild into the OS
// temp directory, then measures them in interleaved rounds and prints the
// median throughput ratios against the hand-built URLSearchParams limit.
//
// Run from the repository root: node bench/node/database_bench.mjs [rounds=9]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "fetchbase-bench-"));
const outfile = join(dir, "candidates.mjs");
await esbuild.build({
  entryPoints: [join(root, "bench/_database_candidates.ts")],
  bundle: true,
  format: "esm",
  platform: "node",
  outfile,
  logLevel: "error",
});
const { interleaved } = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true, force: true });

const rounds = Number(process.argv[2] ?? 9);
for (const line of await interleaved(`Node ${process.version}`, rounds)) console.log(line);
