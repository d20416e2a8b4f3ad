/**
 * The library's version, sent in `X-Client-Info` as `fetchbase/<version>`.
 *
 * @module
 */

/**
 * The fetchbase version; kept equal to `deno.json`'s `version` by a test.
 *
 * @example Reading the version
 * ```ts
 * import { VERSION } from "@fetchbase/fetchbase/core";
 *
 * console.log(`fetchbase/${VERSION}`);
 * ```
 */
export const VERSION = "0.1.0";
