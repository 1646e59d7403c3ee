/**
 * Quoting for the few command strings the controller sends over SSH.
 * Every value that is not a literal of ours goes through shellQuote.
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * `K='v' ... command args` with every key checked and every value quoted. The
 * login shell's own prefix assignments, not env(1): one process fewer on
 * every trial, and a process costs tens of milliseconds under TCG.
 */
export function envCommand(env: Record<string, string>, argv: readonly string[]): string {
  const assignments = Object.entries(env).map(([key, value]) => {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(key)) throw new Error(`invalid environment variable name: ${key}`);
    return `${key}=${shellQuote(value)}`;
  });
  return [...assignments, ...argv.map(shellQuote)].join(' ');
}
