/**
 * A raw HTTP/1.1 server on a random loopback port, for tests that need
 * byte-level control of an answer: headers then a stalled or dripping body,
 * a connection dropped mid-body, a lying `Content-Length`.
 */

/** What a handler is given: the connection and the request head, read whole. */
export interface RawExchange {
  /** The request line and headers, as text. */
  head: string;
  /** Writes text or bytes; false once the peer has gone. */
  write(data: string | Uint8Array): Promise<boolean>;
  /** Closes the connection (a drop, when the answer is not complete). */
  close(): void;
  /** Aborts when the server is closed: a stalled handler waits on it. */
  signal: AbortSignal;
}

/** A running raw server. */
export interface RawServer {
  /** Base URL, e.g. http://127.0.0.1:43123 */
  url: string;
  /** How many connections were accepted. */
  readonly connections: number;
  /** Closes the listener and every connection, and waits for the handlers. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const encoder = new TextEncoder();

/** Serves `handler` once per connection (one request each). */
export function rawServer(handler: (x: RawExchange) => Promise<void> | void): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const stop = new AbortController();
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let connections = 0;
  const exchange = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(64 * 1024);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return;
      head += new TextDecoder().decode(buf.subarray(0, n));
    }
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      conns.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    };
    try {
      await handler({
        head,
        signal: stop.signal,
        close,
        write: async (data) => {
          if (!open) return false;
          const bytes = typeof data === "string" ? encoder.encode(data) : data;
          try {
            for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
            return true;
          } catch {
            return false;
          }
        },
      });
    } finally {
      close();
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        connections++;
        conns.add(conn);
        const task = exchange(conn).catch(() => {});
        tasks.add(task);
        task.finally(() => tasks.delete(task));
      }
    } catch {
      // the listener was closed
    }
  })();
  const closeAll = async () => {
    stop.abort();
    try {
      listener.close();
    } catch {
      // already closed
    }
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    conns.clear();
    await accepting;
    await Promise.all(tasks);
  };
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    get connections() {
      return connections;
    },
    close: closeAll,
    [Symbol.asyncDispose]: closeAll,
  };
}

/** Waits `ms`, or until `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
