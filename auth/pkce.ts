/**
 * PKCE (RFC 7636): a code verifier from the secure random generator and its
 * S256 (or, when asked, plain) code challenge.
 *
 * @module
 */

import { isUint8Array } from "../core/_realm.ts";
import { randomBytes } from "../core/crypto.ts";
import { encodeBase64Url, utf8Encode } from "../core/encoding.ts";
import { showValue } from "../core/_show.ts";

/**
 * Length of a generated code verifier in characters (RFC 7636 allows 43 to 128).
 *
 * @example The verifier's length
 * ```ts
 * import { generatePkceParams, PKCE_VERIFIER_LENGTH } from "@fetchbase/fetchbase/auth";
 *
 * const pkce = await generatePkceParams();
 * console.log(pkce.codeVerifier.length === PKCE_VERIFIER_LENGTH); // true
 * ```
 */
export const PKCE_VERIFIER_LENGTH = 64;

/** A PKCE verifier with its challenge; the verifier is replayed to `exchangeCodeForSession`. */
export interface PkceParams {
  /** The secret verifier (unreserved characters, 43 to 128 of them). */
  codeVerifier: string;
  /** The challenge sent in the authorize URL. */
  codeChallenge: string;
  /** `S256` (the default when absent) or `plain`. */
  codeChallengeMethod?: string | undefined;
}

/** Options of {@linkcode generatePkceParams}. */
export interface GeneratePkceOptions {
  /**
   * A SHA-256 implementation for platforms without WebCrypto; WebCrypto's
   * SHA-256 is used when absent. `null` asks for a plain challenge (the
   * document's rule), as `method: "plain"` does: the verifier itself then
   * goes in the authorize URL, so write `sha256: x ?? undefined`, not
   * `x ?? null`, to fall back to WebCrypto.
   */
  sha256?: ((bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>) | null | undefined;
  /** The challenge method. Default `S256` (`plain` when `sha256` is `null`); `plain` only when asked for. */
  method?: "S256" | "plain" | undefined;
}

/**
 * Derives the challenge of `verifier`: base64url (unpadded) of its SHA-256.
 *
 * @example The RFC 7636 appendix B vector
 * ```ts
 * import { pkceChallengeS256 } from "@fetchbase/fetchbase/auth";
 *
 * console.log(await pkceChallengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
 * // E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM
 * ```
 *
 * @param verifier The code verifier.
 * @param sha256 An optional SHA-256 implementation; WebCrypto by default (also for `null`).
 * @returns The code challenge.
 */
export async function pkceChallengeS256(
  verifier: string,
  sha256?: ((bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>) | null,
): Promise<string> {
  if (typeof verifier !== "string") {
    throw new TypeError(
      `Cannot derive the PKCE challenge as 'verifier' must be a string: current value is ${
        showValue(verifier)
      }`,
    );
  }
  if (sha256 != null && typeof sha256 !== "function") {
    throw new TypeError(
      `Cannot derive the PKCE challenge as 'sha256' must be a function: current value is ${
        showValue(sha256)
      }`,
    );
  }
  const bytes = utf8Encode(verifier);
  let digest: Uint8Array | ArrayBuffer;
  if (sha256 != null) {
    digest = await sha256(bytes);
    // A Uint8Array of any realm: Node's `createHash` gives a Buffer of Node's realm, which is not a
    // Uint8Array of a jsdom test environment's.
    if (!isUint8Array(digest) || digest.length !== 32) {
      throw new TypeError(
        "Cannot derive the PKCE challenge as 'sha256' must return 32 bytes: current value is " +
          (isUint8Array(digest) ? `${digest.length} bytes` : typeof digest),
      );
    }
  } else {
    if (typeof crypto !== "object" || typeof crypto?.subtle?.digest !== "function") {
      throw new TypeError(
        "Cannot derive the PKCE challenge as WebCrypto SHA-256 is unavailable: pass 'sha256' or use method 'plain'",
      );
    }
    digest = await crypto.subtle.digest("SHA-256", bytes);
  }
  return encodeBase64Url(digest);
}

/**
 * Generates PKCE parameters: a {@linkcode PKCE_VERIFIER_LENGTH}-character
 * verifier (48 secure random bytes as base64url, so only unreserved
 * characters) and its challenge. The challenge is S256 through WebCrypto, or
 * through `options.sha256` when given; `method: "plain"`, or `sha256: null`
 * as the document has it, makes the challenge the verifier itself. Without
 * WebCrypto and without `sha256` the promise rejects with a `TypeError`
 * rather than silently downgrading to plain, as it does for a `sha256` that
 * is not a function.
 *
 * @example Starting a PKCE flow
 * ```ts
 * import { generatePkceParams } from "@fetchbase/fetchbase/auth";
 *
 * const pkce = await generatePkceParams();
 * console.log(pkce.codeChallengeMethod, pkce.codeVerifier.length); // S256 64
 * ```
 *
 * @param options A custom SHA-256 and the method.
 * @returns The verifier, challenge and method.
 */
export async function generatePkceParams(
  options?: GeneratePkceOptions,
): Promise<Required<PkceParams>> {
  const method = options?.method ?? (options?.sha256 === null ? "plain" : "S256");
  if (method !== "S256" && method !== "plain") {
    throw new TypeError(
      `Cannot generate PKCE params as 'method' must be "S256" or "plain": current value is ${
        showValue(method)
      }`,
    );
  }
  const codeVerifier = encodeBase64Url(randomBytes((PKCE_VERIFIER_LENGTH * 3) / 4));
  if (method === "plain") {
    return { codeVerifier, codeChallenge: codeVerifier, codeChallengeMethod: "plain" };
  }
  const codeChallenge = await pkceChallengeS256(codeVerifier, options?.sha256);
  return { codeVerifier, codeChallenge, codeChallengeMethod: "S256" };
}
