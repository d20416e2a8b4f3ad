/**
 * Serves the example with Deno: `FETCHBASE_URL=... FETCHBASE_KEY=... deno run -A main.ts`.
 */
import { createApp } from "./app.ts";

const url = Deno.env.get("FETCHBASE_URL");
const apiKey = Deno.env.get("FETCHBASE_KEY");
if (!url || !apiKey) {
  console.error("Set FETCHBASE_URL and FETCHBASE_KEY");
  Deno.exit(1);
}
Deno.serve({ port: Number(Deno.env.get("PORT") ?? 8000) }, createApp({ url, apiKey }).fetch);
