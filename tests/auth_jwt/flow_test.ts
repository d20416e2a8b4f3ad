/** getClaims and the JWKS resolver over real HTTP (a local Hono server). */

import assert from "node:assert/strict";
import { Hono } from "hono";
import { createBaseClient } from "../../core/client.ts";
import type { ServiceResult } from "../../core/result.ts";
import { type ClaimsSource, getClaims } from "../../auth/get_claims.ts";
import { createJwksResolver } from "../../auth/jwks.ts";
import { serve } from "../support/serve.ts";
import { API_KEY, claims, makeKey, signEs256 } from "./_helpers.ts";

Deno.test("flow: getClaims verifies over HTTP; a redirecting JWKS is not followed", async () => {
  const key = await makeKey("k1");
  const hits: string[] = [];
  const app = new Hono();
  app.get("/auth/v1/.well-known/jwks.json", (c) => {
    hits.push(`jwks ${c.req.header("apikey")}`);
    return c.json({ keys: [key.jwk] });
  });
  app.get("/moved/auth/v1/.well-known/jwks.json", (c) => {
    hits.push("moved");
    return c.redirect("/auth/v1/.well-known/jwks.json", 302);
  });
  app.get("/moved/auth/v1/user", (c) => {
    hits.push("user");
    return c.json({ msg: "invalid JWT" }, 401);
  });
  await using server = await serve(app.fetch);

  const client = createBaseClient(server.url, API_KEY);
  const auth: ClaimsSource = {
    jwks: createJwksResolver(client),
    getUser: (t) =>
      client.request({ area: "auth", path: "/user", accessToken: t }) as Promise<
        ServiceResult<unknown>
      >,
  };
  const token = await signEs256({ alg: "ES256", kid: "k1" }, claims(), key.privateKey);
  const r = await getClaims(auth, token);
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(hits, [`jwks ${API_KEY}`]);

  const moved = createBaseClient(`${server.url}/moved`, API_KEY);
  const resolver = createJwksResolver(moved);
  const k = await resolver.resolveSigningKey("k1");
  assert.equal(k.ok, false);
  assert.deepEqual(hits.slice(1), ["moved"]);
  // getClaims then asks the server, which refuses the token here.
  const viaServer: ClaimsSource = {
    jwks: createJwksResolver(moved),
    getUser: (t) =>
      moved.request({ area: "auth", path: "/user", accessToken: t }) as Promise<
        ServiceResult<unknown>
      >,
  };
  const f = await getClaims(viaServer, token);
  assert.equal(!f.ok && f.error.category, "UNAUTHORIZED");
  assert.deepEqual(hits.slice(1), ["moved", "moved", "user"]);
});
