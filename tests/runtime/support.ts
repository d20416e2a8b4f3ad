/** Helpers shared by the runtime tests. */

/** A child process started by {@linkcode spawnUntil}. */
export interface Started {
  /** The captured output up to and including the marker. */
  output: string;
  /** Stops the process (closes stdin, sends SIGTERM) and waits for it. */
  stop(): Promise<void>;
}

/** Spawns a process and waits until its stdout contains `marker`. */
export async function spawnUntil(
  cmd: string,
  args: string[],
  marker: string,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Started> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    output += value;
  }
  reader.releaseLock();
  return {
    output,
    async stop() {
      await child.stdin.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    },
  };
}
