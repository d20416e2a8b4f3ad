// @ts-nocheck -- runs under Node against the npm build, not type-checked by Deno
// Starts a bundled Worker in miniflare (the real workerd runtime) and prints its URL. The Worker
// gets a Workers KV namespace bound as SESSIONS (miniflare's, in memory); workerd runs verbose.
// Usage: node run_miniflare.mjs <bundle.js> <FETCHBASE_URL> <FETCHBASE_KEY> [compatibility date]
// The date may carry compatibility flags after it, each after a "+": "2026-08-01+nodejs_compat".
import { Miniflare } from "miniflare";
import { readFileSync } from "node:fs";

const [script, url, key, setting] = process.argv.slice(2);
const [date, ...compatibilityFlags] = setting?.split("+") ?? [];
const mf = new Miniflare({
  modules: true,
  script: readFileSync(script, "utf8"),
  compatibilityDate: date || "2026-08-01",
  compatibilityFlags,
  bindings: { FETCHBASE_URL: url, FETCHBASE_KEY: key },
  kvNamespaces: ["SESSIONS"],
  kvPersist: false,
  // workerd's own reports (an uncaught exception, a request it cancelled as hung) on stderr.
  verbose: true,
  host: "127.0.0.1",
  port: 0,
});
const ready = await mf.ready;
console.log(`READY ${ready.href}`);
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
