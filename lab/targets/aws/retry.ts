import { InfraError, errorMessage } from '../../errors.js';
import { sleep as realSleep } from '../../util/time.js';

/**
 * AWS answers "slow down" (throttling) and "not yet" (eventual consistency:
 * a security group still used by an instance that is terminating, a volume
 * still attached) as errors. Both pass with time, so a call is repeated with
 * exponential backoff, bounded in total time; any other error is final.
 */

/** Codes AWS uses for "too many requests" or a passing server-side fault. */
export const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'RequestThrottled',
  'TooManyRequestsException',
  'ServiceUnavailable',
  'Unavailable',
  'InternalError',
]);

export function awsErrorCode(err: unknown): string | undefined {
  const e = err as { Code?: unknown; name?: unknown } | undefined;
  if (typeof e?.Code === 'string') return e.Code;
  return typeof e?.name === 'string' && e.name !== 'Error' ? e.name : undefined;
}

export function awsRequestId(err: unknown): string | undefined {
  const e = err as { $metadata?: { requestId?: unknown }; RequestId?: unknown } | undefined;
  const id = e?.$metadata?.requestId ?? e?.RequestId;
  return typeof id === 'string' ? id : undefined;
}

/** An AWS error as an InfraError (exit 3) that keeps its code and request id. */
export function infraErrorOf(what: string, err: unknown): InfraError {
  if (err instanceof InfraError) return err;
  return new InfraError(
    `${what}: ${errorMessage(err)}`,
    { code: awsErrorCode(err), requestId: awsRequestId(err) },
    { cause: err },
  );
}

export interface Backoff {
  /** Give up after this long (ms) since the first attempt. */
  timeoutMs: number;
  /** First wait (ms); doubled after each attempt up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Production pacing: EC2 settles within minutes; throttling clears within seconds. */
export const DEFAULT_BACKOFF: Backoff = { timeoutMs: 10 * 60_000, baseDelayMs: 1_000, maxDelayMs: 30_000 };

/** DEFAULT_BACKOFF, with LAYERLAB_AWS_SETTLE_SECONDS (when set) as how long teardown waits for EC2 to settle. */
export function defaultBackoff(env: NodeJS.ProcessEnv = process.env): Backoff {
  const seconds = Number(env.LAYERLAB_AWS_SETTLE_SECONDS);
  return seconds > 0 ? { ...DEFAULT_BACKOFF, timeoutMs: seconds * 1000 } : DEFAULT_BACKOFF;
}

/** Waits (with jitter) before attempt `attempt` (1 = the first retry); never past the deadline. */
export function backoffDelay(b: Backoff, attempt: number, remainingMs: number): number {
  const exp = Math.min(b.maxDelayMs, b.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exp / 2 + Math.random() * (exp / 2);
  return Math.max(0, Math.min(jittered, remainingMs));
}

export interface RetryOptions extends Backoff {
  /** Codes that mean "not yet" for this call (besides throttling), e.g. DependencyViolation. */
  retryOn?: readonly string[];
}

/**
 * Runs `call` until it succeeds, fails for good, or time is up; `what` names
 * the call in the InfraError (with AWS's code and request id) either way.
 */
export async function retrying<T>(what: string, call: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const code = awsErrorCode(err);
      const passing = code !== undefined && (THROTTLING_CODES.has(code) || !!opts.retryOn?.includes(code));
      if (!passing) throw infraErrorOf(what, err);
      const remaining = opts.timeoutMs - (now() - started);
      if (remaining <= 0) {
        throw infraErrorOf(`${what}: still failing after ${Math.round((now() - started) / 1000)} s of retries`, err);
      }
      await sleep(backoffDelay(opts, attempt, remaining));
    }
  }
}

/** A deletion's "already gone" answers: every `*.NotFound`, and an internet gateway no longer attached. */
export function alreadyGone(code: string | undefined): boolean {
  return code !== undefined && (code.endsWith('.NotFound') || code === 'Gateway.NotAttached');
}

/** A deletion, retried like any call; "already gone" counts as done (a retry may follow a success). */
export function deleting(what: string, call: () => Promise<unknown>, opts: RetryOptions): Promise<void> {
  return retrying(
    what,
    async () => {
      try {
        await call();
      } catch (err) {
        if (!alreadyGone(awsErrorCode(err))) throw err;
      }
    },
    opts,
  );
}
