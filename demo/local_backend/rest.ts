/**
 * A PostgREST stand-in over in-memory tables: select with projection,
 * filters (eq, neq, gt, gte, lt, lte, like, ilike, in, is, not., or=),
 * order, limit/offset, exact counts, single-object reads, insert, upsert
 * (`Prefer: resolution=merge-duplicates|ignore-duplicates`, on `on_conflict`
 * columns, default `id`), update, delete, and row-level security on a
 * `user_id` column.
 *
 * Row-level security, as a simple policy set would give it: a row with a
 * `user_id` (every `todos` row has one; an insert without one gets the
 * caller's) belongs to that user. USING: only the owner sees, updates,
 * deletes or upserts onto it; rows without `user_id` are everyone's. WITH
 * CHECK: an insert, upsert or PATCH whose resulting row would carry another
 * `user_id` (or none, in `todos`) than the caller's is refused whole, as
 * PostgREST does: 403 `42501` "new row violates row-level security policy
 * for table ...", nothing written. The anon role owns no row; the service
 * role (see `context.ts`) bypasses every check. `Preference-Applied` lists the preferences
 * applied, `tx=rollback` never (PostgREST's default `db-tx-end = commit` commits every write). An access token is accepted up to 30 s past its
 * expiry, PostgREST's allowed clock skew (auth and storage routes allow none).
 */

import { Hono } from "hono";
import type { BackendContext, Caller } from "./context.ts";

type Row = Record<string, unknown>;

const pgrstError = (status: number, code: string, message: string, details: string | null = null) =>
  Response.json({ code, details, hint: null, message }, { status });

// `apikey` is the gateway's (it hides the credential from the service), not a filter.
const RESERVED = new Set([
  "select",
  "order",
  "limit",
  "offset",
  "columns",
  "on_conflict",
  "apikey",
]);

/** Splits `a,b,(c,d),"e,f"` at top-level commas. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === "\\" && i + 1 < text.length) {
        current += ch + text[++i];
        continue;
      }
      if (ch === '"') quoted = false;
      current += ch;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out;
}

function unquote(v: string): string {
  return v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, "$1") : v;
}

function compare(a: unknown, b: string): number {
  if (typeof a === "number" && b.trim() !== "" && !Number.isNaN(Number(b))) return a - Number(b);
  const x = String(a);
  return x < b ? -1 : x > b ? 1 : 0;
}

type LikeToken = "%" | "_" | { char: string };

/**
 * A LIKE pattern as PostgREST hands it to Postgres: every `*` becomes `%` first (so `\*` is an
 * escaped `%`), then a backslash escapes the next character. Null for a pattern ending in a lone
 * backslash, which Postgres refuses ("LIKE pattern must not end with escape character").
 */
export function compileLike(pattern: string, caseless: boolean): LikeToken[] | null {
  const p: LikeToken[] = [];
  const chars = Array.from((caseless ? pattern.toLowerCase() : pattern).replaceAll("*", "%"));
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === "\\") {
      if (i + 1 === chars.length) return null;
      p.push({ char: chars[++i] });
    } else if (c === "%") {
      if (p.at(-1) !== "%") p.push("%");
    } else if (c === "_") p.push("_");
    else p.push({ char: c });
  }
  return p;
}

/**
 * Whether `text` matches a compiled LIKE pattern, without a regular expression: greedy with one
 * backtrack point, so at most pattern × text steps whatever the pattern (a regex of many `.*`
 * backtracks exponentially).
 */
export function matchLike(p: LikeToken[], text: string, caseless: boolean): boolean {
  const t = Array.from(caseless ? text.toLowerCase() : text);
  let i = 0, j = 0, star = -1, mark = 0;
  while (i < t.length) {
    const tok = p[j];
    if (tok !== undefined && tok !== "%" && (tok === "_" || tok.char === t[i])) {
      i++;
      j++;
    } else if (tok === "%") {
      star = j++;
      mark = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++mark;
    } else return false;
  }
  while (p[j] === "%") j++;
  return j === p.length;
}

/** Builds a row predicate from `op.value` (with optional `not.`). */
function predicate(column: string, expr: string): ((row: Row) => boolean) | null {
  let negate = false;
  if (expr.startsWith("not.")) {
    negate = true;
    expr = expr.slice(4);
  }
  const dot = expr.indexOf(".");
  if (dot < 0) return null;
  const op = expr.slice(0, dot);
  const raw = expr.slice(dot + 1);
  const value = unquote(raw);
  let test: (v: unknown) => boolean;
  switch (op) {
    case "eq":
      test = (v) => v !== null && v !== undefined && compare(v, value) === 0;
      break;
    case "neq":
      test = (v) => v !== null && v !== undefined && compare(v, value) !== 0;
      break;
    case "gt":
      test = (v) => v !== null && v !== undefined && compare(v, value) > 0;
      break;
    case "gte":
      test = (v) => v !== null && v !== undefined && compare(v, value) >= 0;
      break;
    case "lt":
      test = (v) => v !== null && v !== undefined && compare(v, value) < 0;
      break;
    case "lte":
      test = (v) => v !== null && v !== undefined && compare(v, value) <= 0;
      break;
    case "like":
    case "ilike": {
      const caseless = op === "ilike";
      const pattern = compileLike(value, caseless);
      if (!pattern) return null; // answered 400, as Postgres refuses the pattern
      test = (v) => typeof v === "string" && matchLike(pattern, v, caseless);
      break;
    }
    case "in": {
      if (!raw.startsWith("(") || !raw.endsWith(")")) return null;
      const items = splitTop(raw.slice(1, -1)).map(unquote);
      test = (v) => v !== null && v !== undefined && items.some((i) => compare(v, i) === 0);
      break;
    }
    case "is":
      test = value === "null"
        ? (v) => v === null || v === undefined
        : value === "true"
        ? (v) => v === true
        : value === "false"
        ? (v) => v === false
        : () => false;
      break;
    default:
      return null;
  }
  return (row) => negate !== test(row[column]);
}

function orPredicate(list: string, any: boolean): ((row: Row) => boolean) | null {
  if (!list.startsWith("(") || !list.endsWith(")")) return null;
  const parts: Array<(row: Row) => boolean> = [];
  for (const part of splitTop(list.slice(1, -1))) {
    const groupMatch = part.match(/^(not\.)?(or|and)(\(.*\))$/);
    if (groupMatch) {
      const inner = orPredicate(groupMatch[3], groupMatch[2] === "or");
      if (!inner) return null;
      parts.push(groupMatch[1] ? (r) => !inner(r) : inner);
      continue;
    }
    const dot = part.indexOf(".");
    const p = dot > 0 ? predicate(part.slice(0, dot), part.slice(dot + 1)) : null;
    if (!p) return null;
    parts.push(p);
  }
  return any ? (r) => parts.some((p) => p(r)) : (r) => parts.every((p) => p(r));
}

/** Tables held by a backend, for tests and the demo. */
export type Tables = Map<string, Row[]>;

export function restApp(ctx: BackendContext): { app: Hono; tables: Tables } {
  const app = new Hono();
  const tables: Tables = new Map();
  const nextId = new Map<string, number>();

  // `Preference-Applied` as PostgREST sends it on a successful answer (`prefAppliedHeader` of its
  // `Preferences.hs`), with its default `db-tx-end = commit`: `tx=` is never applied (the write
  // is committed), and a write's `return=`, `missing=`, `resolution=`, then `count=` and
  // `handling=` are listed as asked.
  app.use("*", async (c, next) => {
    await next();
    const asked = (c.req.header("prefer") ?? "").split(",").map((p) => p.trim());
    const write = c.req.method !== "GET" && c.req.method !== "HEAD";
    const applied = asked.filter((p) =>
      (write && /^(resolution|missing|return)=/.test(p)) || /^(count|handling)=/.test(p)
    );
    if (c.res.status < 400 && applied.length > 0) {
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("Preference-Applied", applied.join(", "));
    }
    return undefined;
  });

  app.use("*", async (c, next) => {
    // PostgREST accepts a token up to 30 s past its expiry (its allowed clock skew), as
    // getClaims' leeway does: a request it lets through is not refused here.
    const caller = await ctx.caller(c.req.raw, 30);
    if (caller instanceof Response) return caller;
    c.set("caller" as never, caller as never);
    return next();
  });

  const isService = (caller: Caller) => caller.role === "service_role";
  const isUser = (caller: Caller) => caller.role === "authenticated" && caller.sub !== null;
  /** USING: whether `caller` sees (and may update or delete) `row`. */
  const visible = (caller: Caller, row: Row) =>
    isService(caller) || !("user_id" in row) || (isUser(caller) && row.user_id === caller.sub);
  /** WITH CHECK: whether `row`, as it would be written, may belong to `caller`. */
  const allowed = (caller: Caller, table: string, row: Row) =>
    isService(caller) ||
    (!("user_id" in row) && table !== "todos") ||
    (isUser(caller) && row.user_id === caller.sub);
  /**
   * PostgreSQL's refusal (42501), which PostgREST answers 403 for a signed-in role and 401 for
   * `anon` (its Error.hs). `using`: the row to update is one the policy hides (an upsert onto it).
   */
  const rlsRefused = (table: string, caller: Caller, using = false) =>
    pgrstError(
      isUser(caller) ? 403 : 401,
      "42501",
      `new row violates row-level security policy${
        using ? " (USING expression)" : ""
      } for table "${table}"`,
    );

  const filterRows = (url: URL, rows: Row[], caller: Caller): Row[] | Response => {
    const preds: Array<(row: Row) => boolean> = [];
    for (const [key, value] of url.searchParams) {
      if (RESERVED.has(key)) continue;
      const p = key === "or" || key === "and"
        ? orPredicate(value, key === "or")
        : predicate(key, value);
      if (!p) return pgrstError(400, "PGRST100", `failed to parse filter (${value})`);
      preds.push(p);
    }
    return rows.filter((r) => visible(caller, r) && preds.every((p) => p(r)));
  };

  const project = (url: URL, rows: Row[]): Row[] => {
    const select = url.searchParams.get("select");
    if (!select || select === "*") return rows;
    const cols = select.split(",").map((s) => s.trim()).filter(Boolean);
    return rows.map((r) => Object.fromEntries(cols.map((col) => [col, r[col] ?? null])));
  };

  const respond = (req: Request, rows: Row[], total: number, offset: number, status = 200) => {
    const prefer = req.headers.get("prefer") ?? "";
    const headers = new Headers({ "content-type": "application/json; charset=utf-8" });
    const count = /count=(exact|planned|estimated)/.test(prefer) ? String(total) : "*";
    headers.set(
      "content-range",
      rows.length === 0 ? `*/${count}` : `${offset}-${offset + rows.length - 1}/${count}`,
    );
    if ((req.headers.get("accept") ?? "").includes("application/vnd.pgrst.object+json")) {
      if (rows.length !== 1) {
        return pgrstError(
          406,
          "PGRST116",
          "JSON object requested, multiple (or no) rows returned",
          `The result contains ${rows.length} rows`,
        );
      }
      return new Response(req.method === "HEAD" ? null : JSON.stringify(rows[0]), {
        status,
        headers,
      });
    }
    return new Response(req.method === "HEAD" ? null : JSON.stringify(rows), { status, headers });
  };

  app.on(["GET", "HEAD"], "/:table", (c) => {
    const url = new URL(c.req.url);
    const caller = c.get("caller" as never) as unknown as Caller;
    const filtered = filterRows(url, tables.get(c.req.param("table")) ?? [], caller);
    if (filtered instanceof Response) return filtered;
    const order = url.searchParams.get("order");
    if (order) {
      const keys = order.split(",").map((k) => {
        const [col, dir = "asc"] = k.split(".");
        return { col, sign: dir === "desc" ? -1 : 1 };
      });
      filtered.sort((a, b) => {
        for (const { col, sign } of keys) {
          const x = a[col] as string | number;
          const y = b[col] as string | number;
          if (x === y) continue;
          if (x === null || x === undefined) return sign;
          if (y === null || y === undefined) return -sign;
          return (x < y ? -1 : 1) * sign;
        }
        return 0;
      });
    }
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const limitParam = url.searchParams.get("limit");
    const limit = limitParam === null ? Infinity : Number(limitParam);
    const page = filtered.slice(offset, offset + limit);
    return respond(c.req.raw, project(url, page), filtered.length, offset);
  });

  app.post("/:table", async (c) => {
    const table = c.req.param("table");
    const caller = c.get("caller" as never) as unknown as Caller;
    const body = await c.req.json().catch(() => undefined);
    if (body === undefined || body === null || typeof body !== "object") {
      return pgrstError(400, "PGRST102", "Empty or invalid json");
    }
    const rows = tables.get(table) ?? [];
    const prefer = c.req.header("prefer") ?? "";
    const resolution = /resolution=(merge|ignore)-duplicates/.exec(prefer)?.[1] ?? null;
    const conflictCols = (c.req.query("on_conflict") ?? "id").split(",").map((s) => s.trim());
    const conflicting = (input: Row) =>
      conflictCols.every((col) => input[col] !== undefined)
        ? rows.find((r) => conflictCols.every((col) => r[col] === input[col]))
        : undefined;
    // Checked whole before anything is written: a refused row leaves the table as it was.
    const inserts: Row[] = [];
    const updates: Array<[Row, Row]> = [];
    const affected: Row[] = [];
    for (const input of Array.isArray(body) ? body : [body]) {
      if (input === null || typeof input !== "object" || Array.isArray(input)) {
        return pgrstError(400, "PGRST102", "Empty or invalid json");
      }
      const existing = resolution ? conflicting(input) : undefined;
      if (existing) {
        // Ignored duplicates are left alone, seen or not (ON CONFLICT DO NOTHING).
        if (resolution === "ignore") continue;
        // An upsert onto a row the caller cannot update fails, as in PostgreSQL.
        if (!visible(caller, existing)) return rlsRefused(table, caller, true);
        const merged: Row = { ...existing, ...input };
        if (!allowed(caller, table, merged)) return rlsRefused(table, caller);
        updates.push([existing, merged]);
        affected.push(merged);
        continue;
      }
      const row: Row = { ...input };
      if (table === "todos" || "user_id" in row) row.user_id ??= caller.sub;
      if (!allowed(caller, table, row)) return rlsRefused(table, caller);
      inserts.push(row);
      affected.push(row);
    }
    for (const row of inserts) {
      if (row.id === undefined) {
        const id = (nextId.get(table) ?? 0) + 1;
        nextId.set(table, id);
        row.id = id;
      }
      row.created_at ??= new Date().toISOString();
    }
    for (const [existing, merged] of updates) Object.assign(existing, merged);
    rows.push(...inserts);
    tables.set(table, rows);
    const inserted = affected;
    // PostgREST 12+: an upsert that inserted nothing (every row merged) is 200, not 201.
    const status = resolution === "merge" && inserts.length === 0 ? 200 : 201;
    if (!prefer.includes("return=representation")) return new Response(null, { status });
    return respond(c.req.raw, project(new URL(c.req.url), inserted), inserted.length, 0, status);
  });

  const mutate = (kind: "PATCH" | "DELETE") => async (c: import("hono").Context) => {
    const table = c.req.param("table") ?? "";
    const caller = c.get("caller" as never) as unknown as Caller;
    const url = new URL(c.req.url);
    const rows = tables.get(table) ?? [];
    const matched = filterRows(url, rows, caller);
    if (matched instanceof Response) return matched;
    const patch = kind === "PATCH" ? await c.req.json().catch(() => undefined) : null;
    if (patch !== null && (typeof patch !== "object" || Array.isArray(patch))) {
      return pgrstError(400, "PGRST102", "Empty or invalid json");
    }
    if (patch) {
      // WITH CHECK on every resulting row first: one refused row refuses the whole PATCH.
      if (matched.some((row) => !allowed(caller, table, { ...row, ...patch }))) {
        return rlsRefused(table, caller);
      }
      for (const row of matched) Object.assign(row, patch);
    }
    if (kind === "DELETE") tables.set(table, rows.filter((r) => !matched.includes(r)));
    const prefer = c.req.header("prefer") ?? "";
    if (!prefer.includes("return=representation")) return new Response(null, { status: 204 });
    return respond(c.req.raw, project(url, matched), matched.length, 0);
  };
  app.patch("/:table", mutate("PATCH"));
  app.delete("/:table", mutate("DELETE"));

  return { app, tables };
}
