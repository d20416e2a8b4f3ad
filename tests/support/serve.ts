/**
 * Starts a fetch handler (a Hono app's `fetch`, or any handler) on a random
 * loopback port for flow tests.
 */

/** A running test server. */
export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  /** Stops the server and waits for it to finish. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 with a random port. */
export function serve(
  handler: (request: Request) => Response | Promise<Response>,
): Promise<TestServer> {
  return new Promise((resolve) => {
    const controller = new AbortController();
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: controller.signal,
      onListen: ({ port }) => {
        const close = async () => {
          controller.abort();
          await server.finished;
        };
        resolve({
          url: `http://127.0.0.1:${port}`,
          port,
          close,
          [Symbol.asyncDispose]: close,
        });
      },
    }, handler);
  });
}
