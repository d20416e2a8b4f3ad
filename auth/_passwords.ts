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
  // An absent body has none of these fields, nor would a scalar.
  const o = (body ?? {}) as Record<string, unknown>;
  return PASSWORD_FIELDS.map((k) => o[k]).filter((
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
  const u = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  // Go escapes `<>&` only, Python what is not ASCII only; either may meet the other's escapes.
  const go = json.replace(/[<>&]/g, u);
  const python = json.replace(/[^\x20-\x7e]/g, u);
  let percent = password;
  try {
    percent = encodeURIComponent(password);
  } catch {
    // A lone surrogate has no percent-encoding, and JSON would not have sent it as such.
  }
  const form = new URLSearchParams({ p: password }).toString().slice(2);
  const forms = new Set<string>();
  for (const text of [password, json, go, python, python.replace(/[<>&]/g, u)]) {
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
 * The codes GoTrue answers the calls that carry a password (sign-up, a password grant, a user
 * update: their own, a hook's and those of any call), from `internal/api/apierrors/errorcode.go`
 * at bc32168. A password that is a word of one, such as "password", was blanked out of it by the
 * transport (`weak_***`); the code is given back when exactly one of the request's passwords
 * makes it one of these again, so no password is ever put into a code GoTrue did not send.
 */
const GOTRUE_CODES: ReadonlySet<string> = /* @__PURE__ */ new Set(
  (
    "bad_json bad_jwt captcha_failed conflict current_password_invalid current_password_required " +
    "email_address_invalid email_address_not_authorized email_exists email_not_confirmed " +
    "email_provider_disabled hook_payload_invalid_content_type hook_payload_over_size_limit " +
    "hook_timeout hook_timeout_after_retry insufficient_aal invalid_credentials no_authorization " +
    "over_email_send_rate_limit over_request_rate_limit over_sms_send_rate_limit phone_exists " +
    "phone_not_confirmed phone_provider_disabled provider_disabled reauthentication_needed " +
    "reauthentication_not_valid request_timeout same_password session_expired session_not_found " +
    "signup_disabled sms_send_failed unexpected_failure user_already_exists user_banned " +
    "user_not_found user_sso_managed validation_failed weak_password"
  ).split(" "),
);

/**
 * A failure of a call whose body held passwords, redaction completed: the transport redacts them
 * as typed (given as the call's secrets), and this redacts their other echo forms
 * ({@linkcode echoForms}) from message, details, hint and cause, and the start of one at the end
 * of a cut excerpt. It also gives back a GoTrue error code the transport's redaction
 * broke: GoTrue's codes are made of its own words, and a password that is one of them was
 * blanked out of them (`weak_***` for the password "password", the very one GoTrue's check
 * exists for); see {@linkcode GOTRUE_CODES}.
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
  // A code the redaction broke: given back when exactly one password makes it one of GoTrue's
  // (the transport redacts a secret trimmed, as a header carries it).
  let code = e.code;
  if (code !== null && code.includes("***")) {
    const again = new Set(
      passwords.map((word) => code!.split("***").join(word.trim())).filter((c) =>
        GOTRUE_CODES.has(c)
      ),
    );
    if (again.size === 1) code = [...again][0]!;
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
