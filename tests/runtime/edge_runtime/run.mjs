// @ts-nocheck -- runs under Node, not type-checked by Deno
// Evaluates a bundled script in Vercel's Edge Runtime (the `edge-runtime` npm package), dispatches
// one fetch event to it and prints the answer's body.
// Usage: node run.mjs <bundle.js> <url to dispatch>
import { EdgeRuntime } from "edge-runtime";
import { readFileSync } from "node:fs";

const [script, url] = process.argv.slice(2);
const runtime = new EdgeRuntime({ initialCode: readFileSync(script, "utf8") });
const response = await runtime.dispatchFetch(url);
await response.waitUntil();
process.stdout.write(await response.text());
process.exit(0);
