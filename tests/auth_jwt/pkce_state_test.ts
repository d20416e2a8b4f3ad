import assert from "node:assert/strict";
import { generatePkceParams, PKCE_VERIFIER_LENGTH, pkceChallengeS256 } from "../../auth/pkce.ts";
import { generateOAuthState, verifyOAuthState } from "../../auth/oauth_state.ts";
import { encodeBase64Url } from "../../core/encoding.ts";

const RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const UNRESERVED = /^[A-Za-z0-9\-._~]{43,128}$/;

async function webSha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

Deno.test("the S256 challenge matches the RFC 7636 appendix B vector", async () => {
  assert.equal(await pkceChallengeS256(RFC_VERIFIER), RFC_CHALLENGE);
  assert.equal(await pkceChallengeS256(RFC_VERIFIER, webSha256), RFC_CHALLENGE);
});

Deno.test("generatePkceParams: S256 by default, verifier length and alphabet per RFC 7636", async () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const p = await generatePkceParams();
    assert.equal(p.codeChallengeMethod, "S256");
    assert.equal(p.codeVerifier.length, PKCE_VERIFIER_LENGTH);
    assert.match(p.codeVerifier, UNRESERVED);
    assert.equal(
      p.codeChallenge,
      encodeBase64Url(await webSha256(new TextEncoder().encode(p.codeVerifier))),
    );
    assert.match(p.codeChallenge, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!seen.has(p.codeVerifier));
    seen.add(p.codeVerifier);
  }
});

Deno.test("generatePkceParams uses a caller's sha256, and plain only when asked", async () => {
  let calls = 0;
  const p = await generatePkceParams({
    sha256: (bytes) => {
      calls++;
      return webSha256(bytes);
    },
  });
  assert.equal(calls, 1);
  assert.equal(p.codeChallenge, await pkceChallengeS256(p.codeVerifier));
  // A synchronous implementation is accepted too.
  const fixed = new Uint8Array(32).fill(7);
  const q = await generatePkceParams({ sha256: () => fixed });
  assert.equal(q.codeChallenge, encodeBase64Url(fixed));

  const plain = await generatePkceParams({ method: "plain" });
  assert.equal(plain.codeChallengeMethod, "plain");
  assert.equal(plain.codeChallenge, plain.codeVerifier);
  assert.match(plain.codeVerifier, UNRESERVED);

  await assert.rejects(() => generatePkceParams({ sha256: () => new Uint8Array(20) }), TypeError);
  await assert.rejects(
    () => generatePkceParams({ method: "S512" as unknown as "S256" }),
    TypeError,
  );
});

Deno.test("without WebCrypto, generatePkceParams refuses to downgrade silently", async () => {
  const original = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
  Object.defineProperty(globalThis, "crypto", {
    value: { getRandomValues: crypto.getRandomValues.bind(crypto) },
    configurable: true,
    writable: true,
  });
  try {
    await assert.rejects(() => generatePkceParams(), TypeError);
    assert.equal((await generatePkceParams({ method: "plain" })).codeChallengeMethod, "plain");
    const withHash = await generatePkceParams({ sha256: () => new Uint8Array(32) });
    assert.equal(withHash.codeChallengeMethod, "S256");
  } finally {
    Object.defineProperty(globalThis, "crypto", original);
  }
});

Deno.test("generateOAuthState: 256 random bits as base64url, never repeated", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const s = generateOAuthState();
    assert.match(s, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!seen.has(s));
    seen.add(s);
  }
});

Deno.test("verifyOAuthState: equal passes; mismatch, blank or absent fails without leaking", () => {
  const state = generateOAuthState();
  assert.ok(verifyOAuthState(state, state).ok);
  assert.equal(verifyOAuthState(state, state).getOrThrow(), undefined);
  const cases: [string, string | null | undefined, string][] = [
    [state, state.slice(0, -1) + (state.endsWith("A") ? "B" : "A"), "oauth_state_mismatch"],
    [state, state + "x", "oauth_state_mismatch"],
    [state, state.slice(1), "oauth_state_mismatch"],
    [state, "", "oauth_state_missing"],
    [state, "   ", "oauth_state_missing"],
    [state, null, "oauth_state_missing"],
    [state, undefined, "oauth_state_missing"],
    ["", "", "oauth_state_missing"],
    ["  ", "  ", "oauth_state_missing"],
  ];
  for (const [expected, returned, code] of cases) {
    const r = verifyOAuthState(expected, returned);
    assert.equal(r.ok, false, `${expected} / ${returned}`);
    assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
    assert.equal(!r.ok && r.error.code, code);
    assert.equal(!r.ok && r.error.message.includes(state), false);
  }
});

Deno.test("generatePkceParams: sha256 null is the document's plain challenge; a sha256 or verifier of the wrong type is a clear TypeError", async () => {
  const plain = await generatePkceParams({ sha256: null });
  assert.equal(plain.codeChallengeMethod, "plain");
  assert.equal(plain.codeChallenge, plain.codeVerifier);
  // An explicit method still wins; S256 with a null sha256 uses WebCrypto.
  const s256 = await generatePkceParams({ sha256: null, method: "S256" });
  assert.equal(s256.codeChallengeMethod, "S256");
  assert.equal(s256.codeChallenge, await pkceChallengeS256(s256.codeVerifier));
  // Before: "sha256 is not a function", and a number verifier was hashed as its text.
  for (const bad of [5, "sha", {}]) {
    await assert.rejects(() => generatePkceParams({ sha256: bad as never }), {
      name: "TypeError",
      message:
        /^Cannot derive the PKCE challenge as 'sha256' must be a function: current value is /,
    });
  }
  for (const bad of [5, undefined, new Uint8Array(4)]) {
    await assert.rejects(() => pkceChallengeS256(bad as never), {
      name: "TypeError",
      message:
        /^Cannot derive the PKCE challenge as 'verifier' must be a string: current value is /,
    });
  }
});
