/**
 * Stream request bodies through a `fetch` given to the client, which may not take them: node-fetch
 * and cross-fetch send a web `ReadableStream` as its text, "[object ReadableStream]", made with
 * `String()`. The stream such a fetch is handed refuses to become text (its `Symbol.toPrimitive`
 * throws), so it rejects before it sends anything; one that made the text some other way shows it
 * by answering with a Node stream for a body (no `getReader`).
 *
 * @module
 */

import { type BaseClient, globalFetch } from "../core/client.ts";
import type {
  ResponseBodies,
  ResponseType,
  TransportContext,
  TransportRequest,
  TransportResponse,
} from "../core/transport.ts";
import { withFetch } from "../core/_with_fetch.ts";
import { requestAfterRestore } from "../core/_token_wait.ts";
import { isReadableStream } from "../core/_realm.ts";
import { failure, type ServiceResult } from "../core/result.ts";

/**
 * Sends `req` as `request` does, a stream body through a `fetch` given to the client watched
 * ({@linkcode guardStreams}): one it would send, or sent, as its text is a Failure naming that
 * (not retried: the same fetch would do the same again).
 *
 * @param client The client.
 * @param req The request.
 * @returns The answer, or the failure.
 */
export async function requestWatched<R extends ResponseType>(
  client: BaseClient,
  req: TransportRequest<R>,
): Promise<ServiceResult<TransportResponse<ResponseBodies[R]>>> {
  const guard = isReadableStream(req.body) ? guardStreams(client) : null;
  const r = await requestAfterRestore(client, req, guard?.ctx);
  return guard?.asText
    ? failure({ message: sentAsTextMessage(guard.asText), category: "INVALID_ARGUMENT" })
    : r;
}

/** What a guarded fetch saw: a stream it refused to send as text, or one it sent so. */
interface StreamGuard {
  /** The context to send through: the client itself when its fetch is the runtime's own. */
  readonly ctx: TransportContext;
  /** Null, or how a stream body went as text: `refused` (nothing sent) or `sent`. */
  readonly asText: "refused" | "sent" | null;
}

/**
 * A context whose `fetch` watches stream bodies, when `client` has a `fetch` of its own.
 *
 * @param client The client.
 * @returns The context and what it saw.
 */
function guardStreams(client: BaseClient): StreamGuard {
  const guard: { ctx: TransportContext; asText: StreamGuard["asText"] } = {
    ctx: client,
    asText: null,
  };
  if (client.fetch === globalFetch) return guard;
  guard.ctx = withFetch(client, async (input, init) => {
    const body = init?.body;
    if (!(body instanceof ReadableStream)) return await (0, client.fetch)(input, init);
    const refusal = new TypeError("A ReadableStream request body cannot be sent as text");
    // The stream fetch gets is the transport's own pipe (the caller's stream itself only in
    // workerd before 2022-11-30, which has no pipe; the property changes nothing else there).
    Object.defineProperty(body, Symbol.toPrimitive, {
      value: () => {
        throw refusal;
      },
    });
    let answer: Response;
    try {
      answer = await (0, client.fetch)(input, init);
    } catch (error) {
      if (error === refusal) guard.asText = "refused";
      throw error;
    }
    if (answer?.body != null && typeof answer.body.getReader !== "function") {
      guard.asText ??= "sent";
    }
    return answer;
  });
  return guard;
}

/**
 * The Failure of an upload whose stream went, or would have gone, as text.
 *
 * @param asText How.
 * @returns The message, naming whether anything was sent.
 */
function sentAsTextMessage(asText: "refused" | "sent"): string {
  return `Cannot upload a ReadableStream through this fetch, which sends it as the text "[object ReadableStream]" (node-fetch, cross-fetch): ${
    asText === "refused" ? "nothing was sent" : "the object may now hold that text"
  }; upload bytes or a Blob, or use the runtime's own fetch`;
}
