import assert from "node:assert/strict";
import {
  decodeBase64,
  decodeBase64Url,
  encodeBase64,
  encodeBase64Url,
  encodeHex,
  utf8Decode,
  utf8Encode,
} from "../../core/encoding.ts";
import { randomBytes, randomString, sha256, timingSafeEqual } from "../../core/crypto.ts";

Deno.test("base64 matches RFC 4648 test vectors", () => {
  const vectors: Array<[string, string]> = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [plain, encoded] of vectors) {
    assert.equal(encodeBase64(plain), encoded);
    assert.equal(utf8Decode(decodeBase64(encoded)), plain);
  }
});

Deno.test("base64 and base64url round-trip random bytes and agree with btoa", () => {
  for (let n = 0; n < 70; n++) {
    const bytes = randomBytes(n);
    const b64 = encodeBase64(bytes);
    assert.equal(b64, btoa(String.fromCharCode(...bytes)));
    assert.deepEqual(decodeBase64(b64), bytes);
    const url = encodeBase64Url(bytes);
    assert.doesNotMatch(url, /[+/=]/);
    assert.deepEqual(decodeBase64Url(url), bytes);
  }
});

Deno.test("decodeBase64 rejects bad characters and lengths with TypeError", () => {
  assert.throws(() => decodeBase64("ab$d"), TypeError);
  assert.throws(() => decodeBase64("abcde"), TypeError);
  assert.throws(() => decodeBase64("ab==="), TypeError);
  assert.throws(() => decodeBase64("é"), TypeError);
});

Deno.test("utf8 and hex", () => {
  assert.deepEqual([...utf8Encode("é")], [0xc3, 0xa9]);
  assert.equal(utf8Decode(new Uint8Array([0xff])), "\ufffd");
  assert.throws(() => utf8Decode(new Uint8Array([0xff]), true), TypeError);
  assert.equal(encodeHex(new Uint8Array([0, 15, 255])), "000fff");
});

Deno.test("sha256 matches the FIPS 180-2 'abc' vector", async () => {
  assert.equal(
    encodeHex(await sha256("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("timingSafeEqual compares content and length", () => {
  assert.equal(timingSafeEqual("abc", "abc"), true);
  assert.equal(timingSafeEqual("abc", "abd"), false);
  assert.equal(timingSafeEqual("abc", "abcd"), false);
  assert.equal(timingSafeEqual("", ""), true);
  assert.equal(timingSafeEqual("", "a"), false);
  assert.equal(timingSafeEqual(new Uint8Array([1]), new Uint8Array([1])), true);
});

Deno.test("randomBytes and randomString validate input and draw from the alphabet", () => {
  assert.throws(() => randomBytes(-1), RangeError);
  assert.throws(() => randomBytes(1.5), RangeError);
  assert.equal(randomBytes(70000).length, 70000);
  const s = randomString(500, "ab");
  assert.match(s, /^[ab]{500}$/);
  assert.ok(s.includes("a") && s.includes("b"));
  assert.throws(() => randomString(3, "a"), RangeError);
  // A missing alphabet is named (Array.from(undefined) threw "undefined is not iterable").
  for (const bad of [undefined, ["a", "b"], 12]) {
    assert.throws(() => randomString(3, bad as never), {
      name: "TypeError",
      message: /^Cannot draw a random string as 'alphabet' must be a string: current value is /,
    });
  }
});

Deno.test("decodeBase64 refuses wrong padding, a second spelling and mixed alphabets", () => {
  for (const bad of ["QQ=", "QUJD==", "QUJD=", "QR", "QR==", "QUJ=A", "Q+-/_A"]) {
    assert.throws(() => decodeBase64(bad), TypeError, bad);
  }
  assert.deepEqual([...decodeBase64("QQ==")], [65]);
  assert.deepEqual([...decodeBase64("QQ")], [65]);
  assert.deepEqual([...decodeBase64("QUI=")], [65, 66]);
  assert.deepEqual([...decodeBase64("-_8")], [251, 255]);
  assert.deepEqual([...decodeBase64("+/8=")], [251, 255]);
});

Deno.test("randomString refuses a length that is not a non-negative integer", () => {
  for (const bad of [2.5, -1, NaN, Infinity]) {
    assert.throws(() => randomString(bad, "ab"), RangeError, String(bad));
  }
  assert.equal(randomString(0, "ab"), "");
});

Deno.test("the encoders refuse values of another type instead of encoding something else", () => {
  // Before: encodeBase64(3) gave "AAAA" (three zero bytes), encodeBase64({}) "", encodeHex("ab")
  // "ab", decodeBase64(5) no bytes, utf8Encode(5) the bytes of "5".
  for (const bad of [3, {}, [1, 2], null, undefined, Symbol("s"), new Blob(["a"])]) {
    for (const f of [encodeBase64, encodeBase64Url]) {
      assert.throws(() => f(bad as never), {
        name: "TypeError",
        message: /^Cannot encode base64 as 'data' must be bytes or a string: current value is /,
      });
    }
    assert.throws(() => encodeHex(bad as never), {
      name: "TypeError",
      message: /^Cannot encode hex as 'bytes' must be a Uint8Array: current value is /,
    });
  }
  assert.throws(() => encodeHex("ab" as never), { name: "TypeError", message: /"ab"$/ });
  for (const bad of [5, null, undefined, new Uint8Array(2), { length: 4 }]) {
    assert.throws(() => decodeBase64(bad as never), {
      name: "TypeError",
      message: /^Cannot decode base64 as it must be a string: current value is /,
    });
    assert.throws(() => decodeBase64Url(bad as never), TypeError);
    assert.throws(() => utf8Encode(bad as never), {
      name: "TypeError",
      message: /^Cannot encode as UTF-8 as 'text' must be a string: current value is /,
    });
  }
  // Any typed array or DataView is read as its bytes, not element by element.
  const words = new Uint16Array([0x0201, 0x0403]);
  const bytes = new Uint8Array(words.buffer);
  assert.equal(encodeBase64(words), encodeBase64(bytes));
  assert.equal(encodeBase64(new DataView(words.buffer, 1, 2)), encodeBase64(bytes.subarray(1, 3)));
  assert.equal(encodeBase64Url(words.buffer), encodeBase64Url(bytes));
});

Deno.test("encodeHex and encodeBase64 give the same text through the runtime's own encoders and without them (as Node 20)", () => {
  const proto = Uint8Array.prototype as unknown as Record<string, unknown>;
  const lengths = [0, 1, 2, 3, 255, 0x8000 - 1, 0x8000, 0x8000 + 1, 3 * 0x8000 + 7];
  const samples = lengths.map((n) =>
    Uint8Array.from({ length: n }, () => Math.floor(Math.random() * 256))
  );
  const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  const base64Of = (b: Uint8Array) => btoa(Array.from(b, (x) => String.fromCharCode(x)).join(""));
  const check = () => {
    for (const b of samples) {
      assert.equal(encodeHex(b), hexOf(b));
      assert.equal(encodeBase64(b), base64Of(b));
      // A view into a larger buffer encodes only its own bytes.
      const view = new Uint8Array(b.buffer, Math.min(1, b.length), Math.max(0, b.length - 2));
      assert.equal(encodeHex(view), hexOf(view));
      assert.equal(encodeBase64(view), base64Of(view));
    }
  };
  check();
  const saved = ["toHex", "toBase64"].map((k) =>
    [k, Object.getOwnPropertyDescriptor(proto, k)] as const
  );
  try {
    for (const [k] of saved) delete proto[k];
    assert.equal(typeof proto.toHex, "undefined");
    check();
  } finally {
    for (const [k, d] of saved) if (d) Object.defineProperty(proto, k, d);
  }
});
