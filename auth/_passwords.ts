/**
 * Internal: a failure's redaction of the request's passwords, completed.
 *
 * @module
 */

import { failure, type ServiceResult } from "../core/result.ts";
import { redactCause, redactSecrets } from "../core/http_error.ts";

/** The body fields that hold a password. */
export const PASSWORD_FIELDS = ["password", "current_password"] as const;

/** The passwords of a request's JSON body. */
function passwordsOf(body: unknown): string[] {
  if (!body || typeof body !== "object") return [];
  return PASSWORD_FIELDS.map((k) => (body as Record<string, unknown>)[k]).filter((
    v,
  ): v is string => typeof v === "string");
}

/**
 * The forms a password takes in an echo other than as typed (which the transport redacts, before
 * it cuts an excerpt): inside a JSON string (and with `\u` escapes, as Go writes `<>&` and Python
 * anything not ASCII), HTML-escaped (named and numeric entities), percent- and form-encoded (upper
 * and lower-case hex), each also with its runs of whitespace collapsed, as an excerpt shows them.
 */
function echoForms(password: string): string[] {
  const json = JSON.stringify(password).slice(1, -1);
  const escaped = json.replace(
    /[^\x20-\x7e]|[<>&]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  let percent = password;
  try {
    percent = encodeURIComponent(password);
  } catch {
    // A lone surrogate has no percent-encoding, and JSON would not have sent it as such.
  }
  const form = new URLSearchParams({ p: password }).toString().slice(2);
  const forms = new Set<string>();
  for (const text of [password, json, escaped]) {
    const amp = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    forms.add(text);
    forms.add(amp.replace(/"/g, "&quot;").replace(/'/g, "&#39;"));
    forms.add(amp.replace(/"/g, "&#34;").replace(/'/g, "&#039;"));
    forms.add(amp.replace(/"/g, "&quot;").replace(/'/g, "&#x27;"));
  }
  for (const text of [percent, form]) {
    forms.add(text);
    forms.add(text.replace(/%[\dA-F]{2}/g, (hex) => hex.toLowerCase()));
  }
  for (const text of [...forms]) forms.add(text.replace(/\s+/g, " "));
  forms.delete(password);
  return [...forms];
}

/**
 * GoTrue's error-code words of six letters or more (`internal/api/apierrors/errorcode.go`; a
 * shorter secret is never redacted). A password that is one of them, such as "password", was
 * blanked out of GoTrue's code by the transport, and is put back; a password that is not one is
 * never put into a code.
 */
const CODE_WORDS: ReadonlySet<string> = /* @__PURE__ */ new Set(
  ("address already anonymous assertion audience authorization authorized banned callback " +
    "captcha challenge client confirmed conflict consent content credential credentials current " +
    "custom deletable disabled domain dynamic enabled enroll enrolled entity exists expired " +
    "factor factors failed failure feature identity insufficient invalid invite linking managed " +
    "manual metadata mismatch needed passkey passkeys password payload provided provider " +
    "reauthentication refresh registration rejected request required session signup single " +
    "supported timeout unexpected unknown validation verification verified verifier verify " +
    "webauthn").split(" "),
);

/**
 * A failure of a call whose body held passwords, redaction completed: the transport redacts them
 * as typed (given as the call's secrets), and this redacts their other echo forms
 * ({@linkcode echoForms}) from message, details, hint and cause, and the start of one at the end
 * of a cut excerpt. It also gives back a GoTrue error code the transport's redaction
 * broke: GoTrue's codes are made of its own words, and a password that is one of them was
 * blanked out of them (`weak_***` for the password "password", the very one GoTrue's check
 * exists for); see {@linkcode CODE_WORDS}.
 *
 * @param r The call's result.
 * @param body The call's JSON body.
 * @returns The result, its failure redacted.
 */
export function withoutPasswords<T>(r: ServiceResult<T>, body: unknown): ServiceResult<T> {
  const passwords = passwordsOf(body);
  if (r.ok || passwords.length === 0) return r;
  const forms = passwords.flatMap(echoForms);
  const e = r.error;
  const hide = (text: string | null) => {
    if (text === null) return null;
    const out = redactSecrets(text, forms);
    // An excerpt cut within a password's echo ends with its first characters: the longest such
    // start, of any form, is blanked. The transport marks its excerpts' cut with "…", but for
    // the body of a 2xx that is no JSON, cut at 80 characters without a mark.
    const cut = out.endsWith("…")
      ? out.slice(0, -1)
      : out.startsWith("Response is not valid JSON: ")
      ? out
      : null;
    if (cut === null) return out;
    let longest = 0;
    for (const form of [...passwords, ...forms]) {
      // An excerpt is at most a few hundred characters: a longer start is no excerpt's.
      for (let n = Math.min(form.length - 1, cut.length, 300); n > longest; n--) {
        if (cut.endsWith(form.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest < 2 ? out : `${cut.slice(0, -longest)}***${out.slice(cut.length)}`;
  };
  // A code the redaction broke: put back the one password that is a word of GoTrue's codes and
  // makes it one of GoTrue's shape again (two that would are left redacted).
  let code = e.code;
  if (code !== null && code.includes("***")) {
    const again = passwords.filter((word) => CODE_WORDS.has(word)).map((word) =>
      code!.split("***").join(word)
    ).filter((c) => /^[a-z][a-z\d]*(?:_[a-z\d]+)+$/.test(c));
    if (new Set(again).size === 1) code = again[0]!;
  }
  return failure({
    ...e,
    code,
    message: hide(e.message)!,
    details: hide(e.details),
    hint: hide(e.hint),
    cause: redactCause(e.cause, forms),
  });
}
