// Runs in the browser page: PKCE generation, local ES256 verification against the
// project's JWKS, a fetch through the transport and resumable (TUS) uploads of bytes, a Blob
// and a stream in several chunks; then reports back to the test.
import { createBaseClient } from "../../../core/client.ts";
import { createClaimsVerifier, getClaims } from "../../../auth/get_claims.ts";
import { generatePkceParams } from "../../../auth/pkce.ts";
import { createResumableUpload, type ResumableData } from "../../../storage/tus.ts";

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
  // Resumable uploads as the signed-in user, 64 KiB chunks, to the backend on another origin (as
  // an app's page talks to its project): CORS decides which answers and headers the page sees.
  // The test compares what was stored.
  const size = Number(params.get("size"));
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 7 + 3) % 251;
  const user = createBaseClient(params.get("api") ?? "", key, { accessToken: token });
  const sources: Record<string, () => ResumableData> = {
    bytes: () => data,
    blob: () => new Blob([data]),
    stream: () => new Blob([data]).stream(),
  };
  const uploads: Record<string, unknown> = {};
  for (const [kind, source] of Object.entries(sources)) {
    const upload = createResumableUpload(user, "browser", `tus/${kind}.bin`, source(), {
      chunkSize: 64 * 1024,
      maxAttempts: 1,
    });
    let updates = 0;
    const stop = upload.progress.subscribe(() => updates++);
    const r = await upload.await();
    stop();
    uploads[kind] = {
      error: r.ok ? null : `${r.error.category}: ${r.error.message}`,
      uploadUrl: upload.uploadUrl,
      progress: upload.progress.value,
      updates,
    };
  }
  report.uploads = uploads;
} catch (e) {
  report.crash = String(e);
}
await fetch("/__report", { method: "POST", body: JSON.stringify(report) });
