/**
 * Database models and enums: response formats, counts, returning, upsert
 * resolution, explain options, ordering, and the `Content-Range` parser.
 *
 * @module
 */

/**
 * What a read returns; selects the `Accept` media type.
 *
 * @example Requesting CSV
 * ```ts
 * import { ResponseFormat } from "@fetchbase/fetchbase/database";
 *
 * console.log(ResponseFormat.CSV); // CSV
 * ```
 */
export const ResponseFormat = {
  /** A JSON array (default). */
  ROWS: "ROWS",
  /** Exactly one row as an object, else HTTP 406. */
  SINGLE: "SINGLE",
  /** `text/csv`. */
  CSV: "CSV",
  /** `application/geo+json` feature collection. */
  GEOJSON: "GEOJSON",
  /** Headers only: the request is sent as HEAD. */
  HEAD: "HEAD",
} as const;
/** One of the {@linkcode ResponseFormat} values. */
export type ResponseFormat = typeof ResponseFormat[keyof typeof ResponseFormat];

/**
 * How PostgREST counts rows (`Prefer: count=`).
 *
 * @example Exact count
 * ```ts
 * import { CountOption } from "@fetchbase/fetchbase/database";
 *
 * console.log(CountOption.EXACT); // exact
 * ```
 */
export const CountOption = {
  /** Accurate, slowest. */
  EXACT: "exact",
  /** The planner's estimate. */
  PLANNED: "planned",
  /** The estimate, exact for small results. */
  ESTIMATED: "estimated",
} as const;
/** One of the {@linkcode CountOption} values. */
export type CountOption = typeof CountOption[keyof typeof CountOption];

/**
 * What a write returns (`Prefer: return=`).
 *
 * @example Minimal writes
 * ```ts
 * import { ReturnOption } from "@fetchbase/fetchbase/database";
 *
 * console.log(ReturnOption.MINIMAL); // minimal
 * ```
 */
export const ReturnOption = {
  /** Empty body. */
  MINIMAL: "minimal",
  /** The affected rows. */
  REPRESENTATION: "representation",
  /** Empty body, headers such as `Location` kept. */
  HEADERS_ONLY: "headers-only",
} as const;
/** One of the {@linkcode ReturnOption} values. */
export type ReturnOption = typeof ReturnOption[keyof typeof ReturnOption];

/**
 * What an upsert does with an existing row (`Prefer: resolution=`).
 *
 * @example Ignoring duplicates
 * ```ts
 * import { UpsertResolution } from "@fetchbase/fetchbase/database";
 *
 * console.log(UpsertResolution.IGNORE_DUPLICATES); // ignore-duplicates
 * ```
 */
export const UpsertResolution = {
  /** Update the existing row. */
  MERGE_DUPLICATES: "merge-duplicates",
  /** Leave the existing row. */
  IGNORE_DUPLICATES: "ignore-duplicates",
} as const;
/** One of the {@linkcode UpsertResolution} values. */
export type UpsertResolution = typeof UpsertResolution[keyof typeof UpsertResolution];

/**
 * The media type of a query plan.
 *
 * @example JSON plans
 * ```ts
 * import { ExplainFormat } from "@fetchbase/fetchbase/database";
 *
 * console.log(ExplainFormat.JSON); // json
 * ```
 */
export const ExplainFormat = {
  /** `application/vnd.pgrst.plan+text`. */
  TEXT: "text",
  /** `application/vnd.pgrst.plan+json`. */
  JSON: "json",
  /**
   * Named by the document; PostgREST does not serve it, so an operation resolves
   * `Failure(INVALID_ARGUMENT)` (the `build*` builders throw `TypeError`).
   */
  XML: "xml",
  /**
   * Named by the document; PostgREST does not serve it, so an operation resolves
   * `Failure(INVALID_ARGUMENT)` (the `build*` builders throw `TypeError`).
   */
  YAML: "yaml",
} as const;
/** One of the {@linkcode ExplainFormat} values. */
export type ExplainFormat = typeof ExplainFormat[keyof typeof ExplainFormat];

/**
 * Sort direction.
 *
 * @example Descending
 * ```ts
 * import { Order } from "@fetchbase/fetchbase/database";
 *
 * console.log(Order.DESC); // desc
 * ```
 */
export const Order = { ASC: "asc", DESC: "desc" } as const;
/** One of the {@linkcode Order} values. */
export type Order = typeof Order[keyof typeof Order];

/**
 * Where nulls sort.
 *
 * @example Nulls last
 * ```ts
 * import { Nulls } from "@fetchbase/fetchbase/database";
 *
 * console.log(Nulls.LAST); // nullslast
 * ```
 */
export const Nulls = { FIRST: "nullsfirst", LAST: "nullslast" } as const;
/** One of the {@linkcode Nulls} values. */
export type Nulls = typeof Nulls[keyof typeof Nulls];

/**
 * How a full-text query is parsed: `PLAIN` (`plfts`, the default), `PHRASE`
 * (`phfts`), `WEBSEARCH` (`wfts`) or `TSQUERY` (`fts`, raw tsquery syntax).
 *
 * @example Web-search syntax
 * ```ts
 * import { TextSearchType } from "@fetchbase/fetchbase/database";
 *
 * console.log(TextSearchType.WEBSEARCH); // wfts
 * ```
 */
export const TextSearchType = {
  /** `plainto_tsquery` (`plfts`). */
  PLAIN: "plfts",
  /** `phraseto_tsquery` (`phfts`). */
  PHRASE: "phfts",
  /** `websearch_to_tsquery` (`wfts`). */
  WEBSEARCH: "wfts",
  /** `to_tsquery` (`fts`). */
  TSQUERY: "fts",
} as const;
/** One of the {@linkcode TextSearchType} values. */
export type TextSearchType = typeof TextSearchType[keyof typeof TextSearchType];

/** Options of `explain`: every flag defaults to false, the format to TEXT. */
export interface ExplainOptions {
  /** Run the query (EXPLAIN ANALYZE). */
  analyze?: boolean | undefined;
  /** Verbose plan. */
  verbose?: boolean | undefined;
  /** Include settings. */
  settings?: boolean | undefined;
  /** Include buffer usage (needs analyze). */
  buffers?: boolean | undefined;
  /** Include WAL usage (needs analyze). */
  wal?: boolean | undefined;
  /** The plan format. */
  format?: ExplainFormat | undefined;
}

/** An inclusive range of row positions. */
export interface LongRange {
  /** First position, inclusive. */
  from: number;
  /** Last position, inclusive. */
  to: number;
}

/** Count and range parsed from `Content-Range`. */
export interface PostgrestRange {
  /** The total count, or null when the server sent `*`. */
  count: number | null;
  /** The returned window, or null when empty or `*`. */
  range: LongRange | null;
}

/** A raw body with its count and range. */
export interface PostgrestRawPage extends PostgrestRange {
  /** The response body. */
  body: string;
}

/** Decoded rows with their count and range. */
export interface PostgrestPage<T> extends PostgrestRange {
  /** The rows. */
  rows: T[];
}

/**
 * Parses a `Content-Range` header such as `0-9/27`, `* /27` or `0-9/*`.
 * Anything unparsable gives nulls, never a failure.
 *
 * @example Parsing
 * ```ts
 * import { parseContentRange } from "@fetchbase/fetchbase/database";
 *
 * console.log(parseContentRange("0-9/27")); // { count: 27, range: { from: 0, to: 9 } }
 * ```
 *
 * @param header The header value.
 * @returns The count and range.
 */
export function parseContentRange(header: string | null | undefined): PostgrestRange {
  const m = header?.trim().match(/^(?:(\d+)-(\d+)|\*)\/(\d+|\*)$/);
  if (!m) return { count: null, range: null };
  const count = Number(m[3]); // NaN for `*`
  const range = m[1] === undefined ? null : { from: Number(m[1]), to: Number(m[2]) };
  return { count: Number.isSafeInteger(count) ? count : null, range };
}
