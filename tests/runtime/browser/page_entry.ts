// Runs in the browser page: PKCE generation, local ES256 verification against the
// project's JWKS, and a fetch through the transport; then reports back to the test.
import { createBaseClient } from "../../../core/client.ts";
import { createClaimsVerifier, getClaims } from "../../../auth/get_claims.ts";
import { generatePkceParams } from "../../../auth/pkce.ts";

const params = new URLSearchParams(location.search);
const token = params.get("token") ?? "";
const key = params.get("key") ?? "";
const report: Record<string, unknown> = { userAgent: navigator.userAgent };
try {
  const pkce = await generatePkceParams();
  // The challenge recomputed here with the browser's own WebCrypto: base64url(SHA-256(verifier)).
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pkce.codeVerifier)),
  );
  const expected = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  report.pkce = {
    verifierLength: pkce.codeVerifier.length,
    method: pkce.codeChallengeMethod,
    challenge: pkce.codeChallenge,
    challengeMatches: pkce.codeChallenge === expected,
  };
  const client = createBaseClient(location.origin, key);
  const claims = await getClaims(createClaimsVerifier(client), token);
  report.claims = claims.ok
    ? { sub: claims.value.claims.subject, alg: claims.value.header.algorithm }
    : { error: claims.error.message };
  // The same token with another signature must fail the local check.
  const last = token.at(-2) === "A" ? "B" : "A";
  const tampered = await getClaims(createClaimsVerifier(client), token.slice(0, -2) + last + "A");
  report.tampered = tampered.ok ? "accepted" : tampered.error.code;
  const health = await client.request({ area: "auth", path: "/health" });
  report.health = health.ok ? health.value.body : { error: health.error.message };
} catch (e) {
  report.crash = String(e);
}
await fetch("/__report", { method: "POST", body: JSON.stringify(report) });
