// Runs in the browser page: PKCE generation, local ES256 verification against the
// project's JWKS, a fetch through the transport and resumable (TUS) uploads of bytes, a Blob
// and a stream in several chunks; then what an engine may not do (a ReadableStream request
// body); then the library's other main flows (`flows.ts`: sessions, cancellation, OAuth URL and
// fragment import, database, storage), each bounded; then reports back to the test
// (`_harness.ts` reads the report). Every call goes to the project on another origin than the
// page's, whose backend answers CORS as the deployed services do.
import { createBaseClient } from "../../../core/client.ts";
import { createClaimsVerifier, getClaims } from "../../../auth/get_claims.ts";
import { generatePkceParams } from "../../../auth/pkce.ts";
import { upload } from "../../../storage/objects.ts";
import { createResumableUpload, type ResumableData } from "../../../storage/tus.ts";
import { runFlows } from "./flows.ts";

// The page's document (Deno's types, which check this file, have no DOM).
declare const document: {
  createElement(tag: "iframe"): { contentWindow: unknown; remove(): void };
  body: { append(node: unknown): void };
};

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
  // Everything goes to the project's URL, another origin than the page's (as an app's page talks
  // to its project): CORS decides which requests go and which answers and headers the page sees.
  const api = params.get("api") ?? "";
  const client = createBaseClient(api, key);
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
  // Resumable uploads as the signed-in user, 64 KiB chunks. The test compares what was stored.
  const size = Number(params.get("size"));
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 7 + 3) % 251;
  const user = createBaseClient(api, key, { accessToken: token });
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
  // Request bodies sent as a ReadableStream: Chromium sends them only over HTTP/2 (this page is
  // HTTP/1.1), WebKit not at all (its fetch refuses them), Firefox sends their text instead. Bounded, so that a body never sent cannot hang.
  const outcome = (r: { ok: boolean; error?: { category: string; message: string } }) =>
    r.ok ? "stored" : `${r.error!.category}: ${r.error!.message}`;
  const plain = await upload(user, "browser", "plain/stream.bin", new Blob([data]).stream(), {
    timeout: 15_000,
  });
  let streamChunks: string;
  try {
    // 1000 bytes in chunks of 256: few requests even where each chunk went as 23 bytes of text.
    const chunked = createResumableUpload(
      user,
      "browser",
      "tus/streamChunks.bin",
      data.subarray(0, 1000),
      {
        chunkSize: 256,
        maxAttempts: 1,
        streamChunks: true,
        timeout: 15_000,
      },
    );
    streamChunks = outcome(await chunked.await());
  } catch (e) {
    streamChunks = `threw ${e instanceof Error ? `${e.name}: ${e.message}` : e}`;
  }
  // The same plain upload of another realm's stream, a same-origin iframe's: taken for a stream
  // all the same (it was refused as "an object", no `instanceof` the page's ReadableStream).
  const frame = document.createElement("iframe");
  document.body.append(frame);
  const frameBlob = new (frame.contentWindow as typeof globalThis).Blob([data]);
  const viaFrame = await upload(user, "browser", "plain/frame-stream.bin", frameBlob.stream(), {
    timeout: 15_000,
  });
  frame.remove();
  report.probes = { plainStream: outcome(plain), frameStream: outcome(viaFrame), streamChunks };
} catch (e) {
  report.crash = String(e);
}
try {
  report.flows = await runFlows({ api: params.get("api") ?? "", key, token });
} catch (e) {
  report.crash = `${report.crash ?? ""}flows: ${e}`;
}
await fetch("/__report", { method: "POST", body: JSON.stringify(report) });
