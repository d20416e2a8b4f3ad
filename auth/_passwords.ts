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
 * GoTrue's error codes (`internal/api/apierrors/errorcode.go` at bc32168). A password that is a
 * word of one, such as "password", was blanked out of it by the transport (`weak_***`); the code
 * is given back when exactly one of the request's passwords makes it one of these again, so no
 * password is ever put into a code GoTrue did not send.
 */
const GOTRUE_CODES: ReadonlySet<string> = /* @__PURE__ */ new Set(
  (
    "anonymous_provider_disabled bad_code_verifier bad_json bad_jwt bad_oauth_callback " +
    "bad_oauth_state captcha_failed conflict current_password_invalid current_password_required " +
    "custom_provider_not_found email_address_invalid email_address_not_authorized " +
    "email_address_not_provided email_conflict_identity_not_deletable email_exists " +
    "email_not_confirmed email_provider_disabled feature_disabled flow_state_already_used " +
    "flow_state_expired flow_state_not_found hook_payload_invalid_content_type " +
    "hook_payload_over_size_limit hook_timeout hook_timeout_after_retry identity_already_exists " +
    "identity_not_found insufficient_aal invalid_credentials invite_not_found " +
    "manual_linking_disabled mfa_challenge_expired mfa_factor_name_conflict mfa_factor_not_found " +
    "mfa_ip_address_mismatch mfa_phone_enroll_not_enabled mfa_phone_verify_not_enabled " +
    "mfa_totp_enroll_not_enabled mfa_totp_verify_not_enabled mfa_verification_failed " +
    "mfa_verification_rejected mfa_verified_factor_exists mfa_webauthn_enroll_not_enabled " +
    "mfa_webauthn_verify_not_enabled no_authorization not_admin oauth_authorization_not_found " +
    "oauth_client_not_found oauth_client_state_expired oauth_client_state_not_found " +
    "oauth_consent_not_found oauth_dynamic_client_registration_disabled oauth_invalid_state " +
    "oauth_provider_not_supported otp_disabled otp_expired over_custom_provider_quota " +
    "over_email_send_rate_limit over_request_rate_limit over_sms_send_rate_limit passkey_disabled " +
    "phone_exists phone_not_confirmed phone_provider_disabled provider_disabled " +
    "provider_email_needs_verification reauthentication_needed reauthentication_not_valid " +
    "refresh_token_already_used refresh_token_not_found request_entity_too_large request_timeout " +
    "same_password saml_assertion_no_email saml_assertion_no_user_id saml_entity_id_mismatch " +
    "saml_idp_already_exists saml_idp_not_found saml_metadata_fetch_failed saml_provider_disabled " +
    "saml_relay_state_expired saml_relay_state_not_found session_expired session_not_found " +
    "signup_disabled single_identity_not_deletable sms_send_failed sso_domain_already_exists " +
    "sso_provider_disabled sso_provider_not_found too_many_enrolled_mfa_factors too_many_passkeys " +
    "unexpected_audience unexpected_failure unknown user_already_exists user_banned " +
    "user_not_found user_sso_managed validation_failed weak_password web3_provider_disabled " +
    "web3_unsupported_chain webauthn_challenge_expired webauthn_challenge_not_found " +
    "webauthn_credential_exists webauthn_credential_not_found webauthn_verification_failed"
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
