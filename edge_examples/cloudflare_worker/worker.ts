/**
 * The edge example as a Cloudflare Worker, configured through Worker bindings
 * (`FETCHBASE_URL`, `FETCHBASE_KEY`; see wrangler.toml). The app is the same
 * as the Deno example's; the auth middleware (and its JWKS cache) is built
 * once per isolate and reused across requests.
 */
import { createApp } from "../deno/app.ts";

interface Env {
  FETCHBASE_URL: string;
  FETCHBASE_KEY: string;
}

let app: ReturnType<typeof createApp> | null = null;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    app ??= createApp({ url: env.FETCHBASE_URL, apiKey: env.FETCHBASE_KEY });
    return app.fetch(request);
  },
};
