/**
 * The edge example as a Cloudflare Worker, configured through Worker bindings
 * (`FETCHBASE_URL`, `FETCHBASE_KEY`; see wrangler.toml). The app is the same
 * as the Deno example's, made once per isolate at module scope: its auth
 * middleware reads the bindings from each request's context (`c.env`) and
 * keeps one JWKS cache for them across requests.
 */
import { createApp } from "../deno/app.ts";
import type { MiddlewareContext } from "../../hono/mod.ts";

interface Env {
  FETCHBASE_URL: string;
  FETCHBASE_KEY: string;
}

const app: ReturnType<typeof createApp> = createApp((c: MiddlewareContext<Env>) => ({
  url: c.env.FETCHBASE_URL,
  apiKey: c.env.FETCHBASE_KEY,
}));

export default app;
