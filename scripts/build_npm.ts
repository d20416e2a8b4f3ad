/**
 * Builds the npm package, named `fetchbase`, into `npm/` (or the directory
 * given as the first argument) with the TypeScript compiler and esbuild from
 * npm. dnt, the usual tool for this, is published on JSR, which these machines
 * cannot reach. The build itself, shared with the JSR package, is in
 * `_build.ts`; any type error fails it.
 *
 * Run: `deno task build:npm`, or `deno run -A scripts/build_npm.ts <dir>`.
 *
 * @module
 */

import { buildPackage } from "./_build.ts";

await buildPackage("npm", Deno.args[0] ?? new URL("../npm", import.meta.url).pathname);
