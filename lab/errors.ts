/**
 * Errors a person can act on. A UserError is bad input or a missing
 * prerequisite: the CLI prints its message and exits 2 before anything starts.
 */
export class UserError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** A failure during a run that names where it happened (host, trial, phase). */
export class LabError extends Error {
  constructor(
    message: string,
    readonly where: { host?: string; trial?: string; phase?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(LabError.format(message, where), options);
    this.name = 'LabError';
  }

  private static format(message: string, where: LabError['where']): string {
    const parts = Object.entries(where)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${v}`);
    return parts.length ? `[${parts.join(' ')}] ${message}` : message;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
