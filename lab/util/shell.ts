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

/**
 * The remote command (argv) that runs a bash script sent on its stdin, such as
 * prepare's withGuestLib. Not `bash -s`: bash reads a script from a pipe one byte per
 * read(2), so that the rest stays for the commands it runs, and guest/lib.sh
 * alone is some 28,000 of them, about 0.3 s under TCG. `source` reads a pipe
 * in blocks; stdin that is not a pipe (a socket) is read by cat first.
 */
export const SCRIPT_ON_STDIN = ['bash', '-c', 'if [ -p /dev/stdin ]; then source /dev/stdin; else eval "$(cat)"; fi'];
