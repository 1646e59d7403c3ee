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
  return [...assignments(env), ...argv.map(shellQuote)].join(' ');
}

function assignments(env: Record<string, string>): string[] {
  return Object.entries(env).map(([key, value]) => {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(key)) throw new Error(`invalid environment variable name: ${key}`);
    return `${key}=${shellQuote(value)}`;
  });
}

/**
 * Runs the bash script at `path` with `env` exported: sourced by the login
 * shell when that is bash (root's on the hosts layerlab makes, and `sudo bash
 * -c` for other logins), else started by bash. One bash start fewer than
 * envCommand's `bash <path>`, tens of milliseconds under TCG, for the one
 * command run on every trial. The script finds its folder by BASH_SOURCE.
 */
export function bashScriptCommand(env: Record<string, string>, path: string): string {
  const exports = Object.keys(env).length ? `export ${assignments(env).join(' ')}; ` : '';
  const script = shellQuote(path);
  return `${exports}if [ -n "\${BASH_VERSION-}" ]; then . ${script}; else exec bash ${script}; fi`;
}
