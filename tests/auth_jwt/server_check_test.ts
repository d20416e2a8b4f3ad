// The server check getClaims falls back to (HS256, no kid, an unknown kid, no
// JWKS) accepts a token only when the auth server itself answers with the
// token's own user: not a redirect's answer from elsewhere, not an empty 200,
// not another user (found by a security review: a forged HS256 token passed
// when /user was redirected to a host answering 2xx).
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createAuthClient } from "../../auth/client.ts";
import { type ClaimsSource, createClaimsVerifier, getClaims } from "../../auth/get_claims.ts";
import { jsonResponse, recordingFetch } from "../support/recording_fetch.ts";
import { API_KEY, BASE_URL, claims, signHs256 } from "./_helpers.ts";

const SUB = String(claims().sub);

/** A token signed with a secret the auth server does not hold: only the server can tell. */
function forged(extra: Record<string, unknown> = {}): Promise<string> {
  return signHs256(
    { alg: "HS256", typ: "JWT" },
    claims({ role: "service_role", ...extra }),
    new TextEncoder().encode("not-the-project-secret"),
  );
}

/** Both claims sources over one scripted fetch. */
function sources(answer: (url: URL) => Response): {
  name: string;
  source: ClaimsSource;
  hosts: () => string[];
}[] {
  return ["AuthClient", "createClaimsVerifier"].map((name) => {
    const rec = recordingFetch((req) => answer(req.url));
    const client = createBaseClient(BASE_URL, API_KEY, { fetch: rec.fetch });
    const source = name === "AuthClient" ? createAuthClient(client) : createClaimsVerifier(client);
    return { name, source, hosts: () => rec.requests.map((r) => r.url.host) };
  });
}

Deno.test("a /user redirected to another host is not the auth server's answer: the forged token is refused and the host never asked", async () => {
  const token = await forged();
  for (const status of [301, 302, 303, 307, 308]) {
    for (
      const { name, source, hosts } of sources((url) =>
        url.host === "cdn.other.example"
          ? jsonResponse({ id: SUB, aud: "authenticated" })
          : new Response(null, { status, headers: { location: "https://cdn.other.example/u" } })
      )
    ) {
      const r = await getClaims(source, token);
      assert.equal(r.ok, false, `${name} ${status}`);
      assert.notEqual(
        r.errorOrNull()?.category,
        "UNAUTHORIZED",
        `${name} ${status}: not the token's fault`,
      );
      assert.deepEqual(hosts(), [new URL(BASE_URL).host], `${name} ${status}`);
    }
  }
});

Deno.test("the auth server's 200 accepts a token only when it holds the token's own user", async () => {
  const token = await forged();
  const bodies: Array<[string, () => Response]> = [
    ["empty", () => new Response(null, { status: 200 })],
    ["null", () => jsonResponse(null)],
    ["{}", () => jsonResponse({})],
    ["another user", () => jsonResponse({ id: "22222222-2222-2222-2222-222222222222" })],
    ["a numeric id", () => jsonResponse({ id: 1 })],
  ];
  for (const [what, body] of bodies) {
    for (const { name, source } of sources(body)) {
      const r = await getClaims(source, token);
      assert.equal(r.ok, false, `${name}: ${what}`);
    }
  }
  // The token's own user: accepted, by both sources.
  for (const { name, source } of sources(() => jsonResponse({ id: SUB }))) {
    const r = await getClaims(source, token);
    assert.equal(r.ok, true, name);
    assert.equal(r.getOrThrow().claims.subject, SUB);
  }
  // A token without a subject has no user to match, whatever the answer: `{}` or a body that is
  // no user at all once matched it (undefined on both sides) in the verify-only source.
  const anonymous = await forged({ sub: undefined });
  const blankSub = await forged({ sub: "" });
  const answers: Array<[string, unknown]> = [
    ["its user", { id: SUB }],
    ["{}", {}],
    ["a string", "not a user"],
    ["a list", []],
    ["a blank id", { id: "" }],
  ];
  for (const [what, answer] of answers) {
    for (const token of [anonymous, blankSub]) {
      for (const { name, source } of sources(() => jsonResponse(answer))) {
        const r = await getClaims(source, token);
        assert.equal(r.ok, false, `${name}: ${what}`);
      }
    }
  }
});

Deno.test("getUser follows no redirect: a redirected token check is a failure, not another host's user; other auth calls keep the transport's redirects", async () => {
  const rec = recordingFetch((req) =>
    req.url.host === "cdn.other.example"
      ? jsonResponse({ id: SUB, email: "someone@else.example" })
      : new Response(null, { status: 302, headers: { location: "https://cdn.other.example/u" } })
  );
  const auth = createAuthClient(createBaseClient(BASE_URL, API_KEY, { fetch: rec.fetch }));
  const r = await auth.getUser("some-access-token");
  assert.equal(r.ok, false);
  assert.equal(r.errorOrNull()?.status, 302);
  assert.equal(rec.requests.length, 1);

  // A proxy moving the auth API within its origin: a sign-in still gets there.
  const moved = recordingFetch((req) =>
    req.url.pathname.startsWith("/auth/v1/")
      ? new Response(null, {
        status: 308,
        headers: { location: req.url.pathname.replace("/auth/v1/", "/gotrue/") + req.url.search },
      })
      : jsonResponse({
        access_token: "a-token",
        refresh_token: "r-token",
        expires_in: 3600,
        token_type: "bearer",
        user: { id: SUB },
      })
  );
  const proxied = createAuthClient(createBaseClient(BASE_URL, API_KEY, { fetch: moved.fetch }));
  const session = await proxied.signInWithEmail("ada@example.com", "correct horse");
  assert.equal(session.getOrThrow().accessToken, "a-token");
  assert.equal(moved.last.url.pathname, "/gotrue/token");
});

Deno.test("the auth server's refusals of the token are UNAUTHORIZED, its 400s included (a sub that is no UUID, another audience); other failures keep their category", async () => {
  const token = await forged();
  const refusals: Array<[number, Record<string, unknown>]> = [
    [400, { code: "bad_jwt", msg: "invalid claim: sub claim must be a UUID" }],
    [400, { code: "validation_failed", msg: "Token audience doesn't match request audience" }],
    [401, { code: "no_authorization", msg: "This endpoint requires a valid Bearer token" }],
    [403, { code: "bad_jwt", msg: "invalid JWT: unable to parse or verify signature" }],
  ];
  for (const [status, body] of refusals) {
    for (const { name, source } of sources(() => jsonResponse(body, { status }))) {
      const r = await getClaims(source, token);
      const e = r.errorOrNull();
      assert.equal(e?.category, "UNAUTHORIZED", `${name} ${status} ${body.code}`);
      assert.equal(e?.status, status, name);
      assert.equal(e?.code, body.code, name);
    }
  }
  const others: Array<[number, string]> = [[404, "NOT_FOUND"], [409, "CONFLICT"]];
  for (const [status, category] of others) {
    for (const { name, source } of sources(() => jsonResponse({ msg: "no" }, { status }))) {
      const r = await getClaims(source, token);
      assert.equal(r.errorOrNull()?.category, category, `${name} ${status}`);
    }
  }
});

Deno.test("the server check reads at most 8 MiB of a /user answer, as every GoTrue call does: a body that goes on is cut", async () => {
  const token = await forged();
  for (const name of ["AuthClient", "createClaimsVerifier"]) {
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const fetch = (() =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull(c) {
              pulled += chunk.length;
              // 64 MiB of blanks: JSON would read them as nothing before a value.
              if (pulled > 64 * 1024 * 1024) c.close();
              else c.enqueue(chunk.slice());
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
      )) as typeof globalThis.fetch;
    const client = createBaseClient(BASE_URL, API_KEY, { fetch });
    const source = name === "AuthClient" ? createAuthClient(client) : createClaimsVerifier(client);
    const r = await getClaims(source, token);
    assert.equal(r.errorOrNull()?.category, "DECODE", name);
    assert.ok(pulled <= 12 * 1024 * 1024, `${name}: read ${pulled} bytes`);
  }
});
