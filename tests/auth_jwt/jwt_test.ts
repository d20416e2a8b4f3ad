import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeJwk,
  decodeJwkSet,
  decodeJwtClaims,
  decodeJwtHeader,
  MAX_JWT_LENGTH,
  parseJwtClaims,
} from "../../auth/jwt.ts";
import { DecodeError } from "../../core/decode.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import { b64json, claims } from "./_helpers.ts";

Deno.test("parseJwtClaims returns every claim without verifying", () => {
  const payload = claims({ custom: { a: [1, 2] }, "name-é": "ünï" });
  const token = `${b64json({ alg: "ES256", kid: "k" })}.${b64json(payload)}.bm90LWEtc2ln`;
  const r = parseJwtClaims(token);
  assert.ok(r.ok);
  assert.deepEqual(r.value, payload);
  // No signature at all is still parseable (nothing is verified here).
  assert.ok(parseJwtClaims(`${b64json({ alg: "none" })}.${b64json({ sub: "u" })}.`).ok);
});

Deno.test("parseJwtClaims turns every malformed shape into INVALID_ARGUMENT", () => {
  const h = b64json({ alg: "ES256" });
  const p = b64json({ sub: "u" });
  const bad = [
    "",
    ".",
    "..",
    "a.b",
    `${h}.${p}`,
    `${h}.${p}.s.t`,
    `${h}.${p}.s.t.u`,
    `${h}.${p}.s%`,
    `${h}.${p}.s=`,
    `${h}.${p}=.s`,
    `${h}.${p} .s`,
    `${h}.a.s`, // impossible base64 length
    `${h}.${encodeBase64Url("{")}.s`,
    `${h}.${encodeBase64Url('"str"')}.s`,
    `${h}.${encodeBase64Url("true")}.s`,
    `${h}.${encodeBase64Url("[]")}.s`,
    `${encodeBase64Url("[]")}.${p}.s`,
    `${h}.${encodeBase64Url(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]))}.s`,
    `${h}.${"A".repeat(MAX_JWT_LENGTH)}.s`,
  ];
  for (const token of bad) {
    const r = parseJwtClaims(token);
    assert.equal(r.ok, false, token.slice(0, 60));
    assert.equal(!r.ok && r.error.category, "INVALID_ARGUMENT");
    assert.equal(!r.ok && r.error.code, "bad_jwt");
  }
  for (const value of [null, undefined, 1, {}, []]) {
    assert.equal(parseJwtClaims(value as unknown as string).ok, false);
  }
  const huge = parseJwtClaims(`${h}.${"A".repeat(MAX_JWT_LENGTH)}.s`);
  assert.match(!huge.ok ? huge.error.message : "", /exceeds 32768 characters/);
});

Deno.test("parseJwtClaims never throws, whatever the input (property)", () => {
  const part = fc.oneof(
    fc.string(),
    fc.base64String().map((s) => s.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")),
    fc.json().map((j) => encodeBase64Url(j)),
  );
  fc.assert(
    fc.property(fc.array(part, { minLength: 0, maxLength: 5 }), (parts) => {
      const r = parseJwtClaims(parts.join("."));
      if (r.ok) {
        assert.equal(typeof r.value, "object");
        assert.ok(!Array.isArray(r.value));
      } else {
        assert.equal(r.error.category, "INVALID_ARGUMENT");
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("decodeJwtHeader and decodeJwtClaims map the wire names and tolerate odd types", () => {
  assert.deepEqual(decodeJwtHeader({ alg: "HS256", typ: "JWT", kid: "k", x: 1 }), {
    algorithm: "HS256",
    type: "JWT",
    keyId: "k",
  });
  assert.deepEqual(decodeJwtHeader({ alg: 5 }), { algorithm: null, type: null, keyId: null });
  const c = decodeJwtClaims({
    sub: "s",
    email: "e",
    phone: "p",
    role: "r",
    iss: "i",
    exp: 10,
    nbf: 5,
    iat: 4,
    session_id: "sid",
    aal: "aal2",
    is_anonymous: true,
    app_metadata: { a: 1 },
    user_metadata: { b: 2 },
  });
  assert.deepEqual(c, {
    subject: "s",
    email: "e",
    phone: "p",
    role: "r",
    issuer: "i",
    expiresAt: 10,
    notBefore: 5,
    issuedAt: 4,
    sessionId: "sid",
    authenticatorAssuranceLevel: "aal2",
    isAnonymous: true,
    appMetadata: { a: 1 },
    userMetadata: { b: 2 },
  });
  const empty = decodeJwtClaims({ app_metadata: [1], is_anonymous: "yes", exp: "x" });
  assert.equal(empty.subject, null);
  assert.equal(empty.appMetadata, null);
  assert.equal(empty.isAnonymous, null);
  assert.equal(empty.expiresAt, null);
  assert.throws(() => decodeJwtClaims(null), DecodeError);
});

Deno.test("decodeJwk and decodeJwkSet map the JWK members", () => {
  assert.deepEqual(
    decodeJwk({ kty: "RSA", alg: "RS256", kid: "r", use: "sig", n: "nn", e: "AQAB", d: "x" }),
    {
      keyType: "RSA",
      algorithm: "RS256",
      keyId: "r",
      curve: null,
      use: "sig",
      x: null,
      y: null,
      modulus: "nn",
      exponent: "AQAB",
    },
  );
  assert.equal(decodeJwk({ kty: "EC", crv: "P-256", x: "X", y: "Y" }).y, "Y");
  assert.throws(() => decodeJwk({ crv: "P-256" }), DecodeError);
  assert.deepEqual(decodeJwkSet({}), { keys: [] });
  assert.deepEqual(decodeJwkSet({ keys: "no" }), { keys: [] });
  assert.equal(decodeJwkSet({ keys: [{ kty: "EC" }, null, 3, { kid: "x" }] }).keys.length, 1);
});
