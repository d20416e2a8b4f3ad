/**
 * Internal: a failure with the request's passwords redacted from all but its code.
 *
 * @module
 */

import { failure, type ServiceResult } from "../core/result.ts";
import { redactCause, redactSecrets } from "../core/http_error.ts";

/** The body fields that hold a password. */
const PASSWORD_FIELDS = ["password", "current_password"] as const;

/**
 * The forms a body's passwords take where an error could show them: as typed, with its runs of
 * whitespace collapsed (as an excerpt shows a body), inside a JSON string, and percent- and
 * form-encoded (an echo of the request, a custom fetch's error quoting it).
 *
 * @param body The request's JSON body.
 * @returns The forms, duplicates included.
 */
export function passwordForms(body: unknown): string[] {
  if (!body || typeof body !== "object") return [];
  const out: string[] = [];
  for (const k of PASSWORD_FIELDS) {
    const v = (body as Record<string, unknown>)[k];
    if (typeof v !== "string") continue;
    let encoded = v;
    try {
      encoded = encodeURIComponent(v);
    } catch {
      // A lone surrogate has no percent-encoding, and JSON would not have sent it as such.
    }
    out.push(
      v,
      v.replace(/\s+/g, " "),
      JSON.stringify(v).slice(1, -1),
      encoded,
      encoded.replace(/%20/g, "+"),
    );
  }
  return out;
}

/**
 * The failure with `forms` (a request's passwords, {@linkcode passwordForms}) redacted from its
 * message, details, hint and cause, and from the end of a cut excerpt (where only the password's
 * first characters made it in). Not from a code that is one of GoTrue's words (lower-case
 * snake case, the password itself excepted): a password is often part of one, and the
 * transport's redaction turned `weak_password` into `weak_***` for the password "password", the
 * one GoTrue's check exists for.
 *
 * @param r The call's result.
 * @param forms The passwords' forms.
 * @returns The result, redacted.
 */
export function withoutPasswords<T>(r: ServiceResult<T>, forms: string[]): ServiceResult<T> {
  if (r.ok || forms.length === 0) return r;
  const e = r.error;
  const hide = (text: string | null) => {
    if (text === null) return null;
    let out = redactSecrets(text, forms);
    // An excerpt cut within a password ends with its first characters, then "…".
    if (out.endsWith("…")) {
      const body = out.slice(0, -1);
      for (const form of forms) {
        for (let n = Math.min(form.length - 1, body.length); n >= 2; n--) {
          if (body.endsWith(form.slice(0, n))) {
            out = `${body.slice(0, -n)}***…`;
            break;
          }
        }
      }
    }
    return out;
  };
  return failure({
    ...e,
    // A code that is no such word (a server's echo of the request put there) is redacted too.
    code: e.code !== null && /^[a-z][a-z\d_]*$/.test(e.code) && !forms.includes(e.code)
      ? e.code
      : hide(e.code),
    message: hide(e.message)!,
    details: hide(e.details),
    hint: hide(e.hint),
    cause: redactCause(e.cause, forms),
  });
}
