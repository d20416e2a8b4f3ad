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
 * it cuts an excerpt): with its runs of whitespace collapsed (as an excerpt shows a body), inside
 * a JSON string, HTML-escaped, percent-encoded and form-encoded (an echo of the request, a custom
 * fetch's error quoting it).
 */
function echoForms(password: string): string[] {
  const html = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const json = JSON.stringify(password).slice(1, -1);
  let percent = password;
  try {
    percent = encodeURIComponent(password);
  } catch {
    // A lone surrogate has no percent-encoding, and JSON would not have sent it as such.
  }
  return [
    password.replace(/\s+/g, " "),
    json,
    html(password),
    html(json),
    html(password).replace(/'/g, "&#39;"),
    html(password).replace(/'/g, "&#x27;"),
    percent,
    new URLSearchParams({ p: password }).toString().slice(2),
  ];
}

/**
 * A failure of a call whose body held passwords, redaction completed: the transport redacts them
 * as typed (given as the call's secrets), and this redacts their other echo forms
 * ({@linkcode echoForms}) from message, details, hint and cause, and the start of one at the end
 * of a cut excerpt. It also gives back a GoTrue error code the transport's redaction
 * broke: GoTrue's codes are its own lower-case words, and a password that is a word was blanked
 * out of them (`weak_***` for the password "password", the very one GoTrue's check exists for);
 * a code that reads as one of GoTrue's with the password put back in is its code.
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
      for (let n = Math.min(form.length - 1, cut.length); n > longest; n--) {
        if (cut.endsWith(form.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest < 2 ? out : `${cut.slice(0, -longest)}***${out.slice(cut.length)}`;
  };
  let code = e.code;
  if (code !== null && code.includes("***")) {
    for (const word of passwords) {
      const again = code.split("***").join(word);
      if (/^[a-z]+$/.test(word) && /^[a-z][a-z\d]*(?:_[a-z\d]+)+$/.test(again)) code = again;
    }
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
