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

/**
 * A cloud or infrastructure failure: AWS refused or failed a call, the Pulumi
 * backend did not answer, a stack is locked by someone else. Exit 3, apart
 * from bad input (2) and a failed benchmark (1), so a scheduler can tell
 * "retry later" from "fix the lab file" from "look at the numbers". The
 * provider's error code and request id are kept: support asks for them.
 */
export class InfraError extends Error {
  readonly exitCode = 3;
  constructor(
    message: string,
    readonly details: { code?: string; requestId?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(InfraError.format(message, details), options);
    this.name = 'InfraError';
  }

  private static format(message: string, details: InfraError['details']): string {
    const parts = [
      details.code ? `error code ${details.code}` : undefined,
      details.requestId ? `request id ${details.requestId}` : undefined,
    ].filter((p): p is string => p !== undefined);
    return parts.length ? `${message} (${parts.join(', ')})` : message;
  }
}
