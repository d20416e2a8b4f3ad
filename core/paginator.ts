/**
 * The shared offset paginator used by storage listing and database reads.
 *
 * @module
 */

import { cancelled, refusedSignal } from "./_abort.ts";
import { failure, type ServiceError, type ServiceResult, success } from "./result.ts";
import { MutableStateFlow, type StateFlow } from "./state_flow.ts";
import { showValue } from "./_show.ts";
import { readOnly } from "./_read_only.ts";

/**
 * Loads pages on demand and exposes the accumulated items and the loading,
 * end and error states as {@linkcode StateFlow}s. Nothing is fetched before
 * the first {@linkcode Paginator.loadNext}; concurrent `loadNext` calls share
 * one fetch; a failure lands in `error` and the next `loadNext` retries the
 * same page.
 *
 * @example Paging
 * ```ts
 * import { createPaginator, success } from "@fetchbase/fetchbase/core";
 *
 * const p = createPaginator<number>(2, (offset, limit) =>
 *   Promise.resolve(success([1, 2, 3].slice(offset, offset + limit))));
 * await p.loadNext();
 * await p.loadNext();
 * console.log(p.items.value, p.isEnd.value); // [ 1, 2, 3 ] true
 * ```
 */
export interface Paginator<T> {
  /** Every item loaded so far, in order. */
  readonly items: StateFlow<readonly T[]>;
  /** True while a page is being fetched. */
  readonly isLoading: StateFlow<boolean>;
  /**
   * True once the last page arrived: a short page, or an empty one when `endOnShortPage` is false
   * (the database `paginator`'s case: PostgREST may cap a page below the page size).
   */
  readonly isEnd: StateFlow<boolean>;
  /** The last failure, cleared by the next successful page. */
  readonly error: StateFlow<ServiceError | null>;
  /**
   * Fetches the next page (or joins the fetch under way). At the end it
   * resolves `Success([])` without fetching.
   *
   * @param options Cancellation.
   * @returns The page's items, or the failure.
   */
  loadNext(options?: { signal?: AbortSignal | undefined }): Promise<ServiceResult<readonly T[]>>;
}

/** Fetches one page: `limit` items from `offset`. */
export type PageFetcher<T> = (
  offset: number,
  limit: number,
  signal?: AbortSignal,
) => Promise<ServiceResult<readonly T[]>>;

/**
 * Builds a {@linkcode Paginator} over a page fetcher. Throws `RangeError`
 * when `pageSize` is not a positive integer.
 *
 * @example A paginator over a fetcher
 * ```ts
 * import { createPaginator, success } from "@fetchbase/fetchbase/core";
 *
 * const p = createPaginator<string>(100, () => Promise.resolve(success(["a"])));
 * console.log(p.items.value.length); // 0: nothing fetched yet
 * ```
 *
 * @param pageSize Items per page, > 0.
 * @param fetchPage Fetches one page.
 * @param options `endOnShortPage` (default true): whether a page shorter than
 * `pageSize` is the last; pass false when the server may cap pages, and the
 * end is then the first empty page.
 * @returns The paginator.
 */
export function createPaginator<T>(
  pageSize: number,
  fetchPage: PageFetcher<T>,
  options?: { endOnShortPage?: boolean | undefined },
): Paginator<T> {
  options ??= {};
  const endOnShortPage = options.endOnShortPage ?? true;
  if (!Number.isInteger(pageSize) || pageSize <= 0) {
    throw new RangeError(
      `Cannot paginate as 'pageSize' must be a positive integer: current value is ${
        showValue(pageSize)
      }`,
    );
  }
  // The state itself, set whole before any flow says a word of it: a listener (of any flow, at
  // any depth) reads every flow's `value` as it now is, and a load it starts fetches from the
  // current end. The flows then tell each listener the current value.
  // The items as pages, and how many: the frozen list of them all is built only when read (and
  // kept until the next page). Built at every page, as a copy of the one before, it cost time
  // growing with the square of the items (100,000 in pages of 20: 3.6 s).
  const pages: Array<readonly T[]> = [];
  let count = 0;
  let built: readonly T[] = Object.freeze([]);
  let builtPages = 0;
  const held = (): readonly T[] => {
    if (builtPages !== pages.length) {
      built = Object.freeze(pages.flat() as T[]);
      builtPages = pages.length;
    }
    return built;
  };
  let loading = false;
  let ended = false;
  let failed: ServiceError | null = null;
  // Its value is the number of pages: a listener is told the items, built then.
  const items = new MutableStateFlow(0);
  const isLoading = new MutableStateFlow(false);
  const isEnd = new MutableStateFlow(false);
  const error = new MutableStateFlow<ServiceError | null>(null);
  const tell = () => {
    items.value = pages.length;
    error.value = failed;
    isEnd.value = ended;
    isLoading.value = loading;
  };
  /** The page being fetched, shared by its callers; aborted only when every one of them has. */
  let flight:
    | {
      promise: Promise<ServiceResult<readonly T[]>>;
      controller: AbortController;
      waiting: number;
    }
    | null = null;

  /** Bumped by every load: a late answer of a load every caller gave up on changes nothing. */
  let loads = 0;
  const load = async (
    signal: AbortSignal,
    settle: () => void,
  ): Promise<ServiceResult<readonly T[]>> => {
    const mine = ++loads;
    let result: ServiceResult<readonly T[]>;
    try {
      result = await fetchPage(count, pageSize, signal);
    } catch (cause) {
      result = failure({ message: "Page fetch threw", category: "UNKNOWN", cause });
    }
    // A fetcher resolving something else than a result holding a list is a Failure too.
    if (result?.ok === true && !Array.isArray(result.value)) {
      result = failure({ message: "Page fetch resolved no list", category: "DECODE" });
    } else if (result?.ok !== true && !(result?.ok === false && result.error)) {
      result = failure({ message: "Page fetch resolved no result", category: "DECODE" });
    }
    // A page whose every caller gave up is dropped: a new fetch of the same offset follows.
    if (result.ok && signal?.aborted) {
      result = cancelled();
    }
    if (mine !== loads) return result; // a newer load owns the state now
    // The fetch is over before anyone hears of it: a listener's loadNext (fill the screen, retry
    // on error, load when idle) starts the next fetch instead of joining this one.
    settle();
    loading = false;
    if (result.ok) {
      // A copy, frozen: the next offset is the count, which a caller's push would move.
      if (result.value.length > 0) {
        // `Array.from`, not `slice`: a hole in the page is an item (`undefined`), as the offset
        // counts it, which the list of all items would otherwise drop.
        pages.push(Object.freeze(Array.from(result.value)));
        count += result.value.length;
      }
      failed = null;
      // A server that caps its pages (PostgREST's db-max-rows) answers short pages before the
      // end: such a fetcher ends only on an empty page.
      if (endOnShortPage ? result.value.length < pageSize : result.value.length === 0) {
        ended = true;
      }
    } else {
      failed = result.error;
    }
    tell();
    return result;
  };

  // Read-only views whose `value` is the state as it now is.
  return {
    items: itemsView(items, held),
    isLoading: readOnly(isLoading, () => loading),
    isEnd: readOnly(isEnd, () => ended),
    error: readOnly(error, () => failed),
    loadNext(options?: { signal?: AbortSignal | undefined }) {
      if (ended) return Promise.resolve(success([] as readonly T[]));
      const signal = options?.signal;
      const refused = refusedSignal(signal);
      if (refused) return Promise.resolve(refused);
      if (signal?.aborted) {
        return Promise.resolve(
          cancelled(),
        );
      }
      // A fetch every earlier caller gave up on is aborted: a new caller starts afresh.
      let f = flight;
      if (f === null || f.controller.signal.aborted) {
        const controller = new AbortController();
        // Shared before the load says it is loading: a listener of `isLoading` joins it.
        const started = {
          promise: undefined as unknown as Promise<ServiceResult<readonly T[]>>,
          controller,
          waiting: 0,
        };
        flight = started;
        const reset = () => {
          if (flight === started) flight = null;
        };
        // (A fetcher that throws at once settles the load before this returns: `started` is the
        // flight this caller waits for, whatever `flight` says by then.)
        started.promise = load(controller.signal, reset);
        started.promise.then(reset, reset);
        f = started;
        // Said once the fetch can be joined (a listener of `isLoading` joins this one), and only
        // while it runs (a fetcher that throws at once has already settled it).
        if (flight === started) {
          loading = true;
          isLoading.value = true;
        }
      }
      f.waiting++;
      if (!signal) return f.promise; // never gives up: the fetch goes on for it
      return new Promise((resolve) => {
        const onAbort = () => {
          resolve(cancelled());
          if (--f.waiting === 0) f.controller.abort(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        f.promise.then((r) => {
          signal.removeEventListener("abort", onAbort);
          resolve(r);
        });
      });
    },
  };
}

/** The items flow: `flow` counts the pages, and its listeners and iterators get `current()`. */
function itemsView<T>(flow: MutableStateFlow<number>, current: () => T): StateFlow<T> {
  return {
    get value(): T {
      return current();
    },
    subscribe: (listener) => {
      if (typeof listener !== "function") return flow.subscribe(listener);
      return flow.subscribe(() => listener(current()));
    },
    [Symbol.asyncIterator]: (): AsyncIterator<T> => {
      const pagesSeen = flow[Symbol.asyncIterator]();
      return {
        next: async () => {
          const r = await pagesSeen.next();
          return r.done ? { done: true, value: undefined } : { done: false, value: current() };
        },
        return: async () => {
          await pagesSeen.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
