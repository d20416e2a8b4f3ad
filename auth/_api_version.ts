/** Internal: the GoTrue API version every auth request asks for. */

/** GoTrue's current error format (`{ code: <error code>, message }`), as auth-js asks for it. */
export const API_VERSION: Readonly<Record<string, string>> = {
  "x-supabase-api-version": "2024-01-01",
};
