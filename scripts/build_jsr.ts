/**
 * Builds the JSR package, `@fetchbase/fetchbase`, into `jsr/` (or the directory
 * given as the first argument): the same bundled JavaScript as the npm package (with its whitespace, which Deno's code cache makes free),
 * each subpath naming its `.d.ts` declarations with `@ts-self-types`, and a
 * `deno.json` with the package's name, version and exports. What JSR receives
 * is this directory (`deno task publish`), not the TypeScript sources: Deno
 * loads two JavaScript files where the sources cost a cached transpile per
 * module. The build is shared with the npm package (`_build.ts`); any type
 * error fails it.
 *
 * Run: `deno task build:jsr`, or `deno run -A scripts/build_jsr.ts <dir>`.
 *
 * @module
 */

import { buildPackage } from "./_build.ts";

await buildPackage("jsr", Deno.args[0] ?? new URL("../jsr", import.meta.url).pathname);
