/**
 * Cloud failures as exit 3. The AWS SDK and the Pulumi Automation API throw
 * their own error types; at the places where layerlab calls them, those
 * become an InfraError that says what layerlab was doing and keeps what
 * support asks for: AWS's error code and request id.
 */
import { InfraError, LabError, UserError, errorMessage } from '../../errors.js';

/** What AWS SDK v3 service errors carry (ServiceException); older shapes use Code/RequestId. */
interface AwsSdkErrorShape {
  name?: string;
  message?: string;
  Code?: string;
  RequestId?: string;
  $fault?: 'client' | 'server';
  $metadata?: { requestId?: string; extendedRequestId?: string; httpStatusCode?: number };
}

/** The Automation API's CommandError (and its subclasses): the pulumi CLI's result. */
interface PulumiCommandErrorShape {
  name: string;
  commandResult: { stdout?: string; stderr?: string; code?: number };
}

/** SDK errors that never reached AWS: no credentials, no network, a timeout. */
const SDK_CLIENT_SIDE = new Set(['CredentialsProviderError', 'TimeoutError', 'NetworkingError', 'TokenProviderError']);
const NETWORK_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH']);

export function isAwsSdkError(err: unknown): err is Error & AwsSdkErrorShape {
  if (!(err instanceof Error)) return false;
  const e = err as Error & AwsSdkErrorShape;
  return (
    (typeof e.$metadata === 'object' && e.$metadata !== null) || e.$fault !== undefined || SDK_CLIENT_SIDE.has(e.name)
  );
}

export function isPulumiCommandError(err: unknown): err is Error & PulumiCommandErrorShape {
  return (
    err instanceof Error &&
    /^(CommandError|ConcurrentUpdateError|StackNotFoundError|StackAlreadyExistsError)$/.test(err.name) &&
    typeof (err as Partial<PulumiCommandErrorShape>).commandResult === 'object'
  );
}

/** A network failure on the controller's side (the SDK's fetch, the Pulumi backend). */
function networkErrno(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && NETWORK_ERRNO.has(code) ? code : undefined;
}

/**
 * The part of Pulumi's output a person needs: its `error:` lines (the
 * provider's message, which names the AWS call), without the progress table.
 */
function pulumiSummary(stderr: string, stdout: string): string {
  const lines = `${stderr}\n${stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^error:|error: /i.test(l));
  const text =
    (lines.length ? [...new Set(lines)].join('; ') : stderr.trim().split('\n').slice(-3).join('; ')) || 'no output';
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}

/**
 * The AWS error code and request id inside a provider message, as
 * terraform-provider-aws (which Pulumi's AWS provider wraps) prints them:
 * `operation error EC2: RunInstances, https response error StatusCode: 403,
 * RequestID: 5f3c…, api error UnauthorizedOperation: …`.
 */
export function awsDetailsInText(text: string): { code?: string; requestId?: string } {
  const code =
    /api error ([A-Za-z0-9.]+):/.exec(text)?.[1] ?? /\bStatusCode: \d+, RequestID: [^,]+, (\w+):/.exec(text)?.[1];
  const requestId = /RequestID: ([A-Za-z0-9-]+)/i.exec(text)?.[1];
  return { ...(code ? { code } : {}), ...(requestId ? { requestId } : {}) };
}

const PULUMI_HINT: Record<string, string> = {
  ConcurrentUpdateError:
    'the stack is locked by another update: wait for it to end; if the run that holds it is dead, `pulumi cancel --stack <name>` releases the lock',
  StackNotFoundError: 'no such stack in the logged-in backend (`pulumi stack ls`; check PULUMI_BACKEND_URL)',
};

/**
 * `err` as an InfraError (exit 3) when it came from AWS or from Pulumi;
 * anything else (a UserError, a LabError, a bug) is returned unchanged.
 * `what` says what layerlab was doing, e.g. "pulumi up of stack nightly-1";
 * `hint`, what to do about it.
 */
export function asInfraError(err: unknown, what: string, hint?: string): unknown {
  const todo = hint ? `; ${hint}` : '';
  if (err instanceof InfraError || err instanceof UserError || err instanceof LabError) return err;
  if (isAwsSdkError(err)) {
    const code = err.Code ?? err.name;
    return new InfraError(
      `${what}: AWS said ${errorMessage(err) || code}${todo}`,
      { code, requestId: err.$metadata?.requestId ?? err.RequestId },
      { cause: err },
    );
  }
  if (isPulumiCommandError(err)) {
    const { stderr = '', stdout = '', code } = err.commandResult;
    const summary = pulumiSummary(stderr, stdout);
    const known = PULUMI_HINT[err.name];
    const details = awsDetailsInText(`${stderr}\n${stdout}`);
    return new InfraError(
      `${what}: pulumi failed${typeof code === 'number' && code >= 0 ? ` (exit ${code})` : ''}: ${summary}${known ? `; ${known}` : ''}${todo}`,
      { code: details.code ?? err.name, requestId: details.requestId },
      { cause: err },
    );
  }
  const errno = networkErrno(err);
  if (errno) return new InfraError(`${what}: ${errorMessage(err)}${todo}`, { code: errno }, { cause: err });
  return err;
}

/** Runs one call to AWS or Pulumi; its failure comes back as asInfraError says. */
export async function atCloudBoundary<T>(what: string, call: () => Promise<T>, hint?: string): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw asInfraError(err, what, hint);
  }
}
