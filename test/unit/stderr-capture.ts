/** Runs `fn` with what it writes to stderr captured; stderr is restored after, even when `fn` throws. */
export async function withStderrCaptured<T>(fn: () => T | Promise<T>): Promise<{ value: T; said: string }> {
  const write = process.stderr.write;
  let said = '';
  process.stderr.write = ((s: string | Uint8Array) => {
    said += String(s);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { value: await fn(), said };
  } finally {
    process.stderr.write = write;
  }
}
