/**
 * The limit on failed logins, per login and per client address (docs/api.md, Authentication).
 * An attempt is counted as a failure *before* the slow password check and withdrawn when the
 * password turns out right: concurrent guesses then meet the limit one by one, instead of all
 * passing the check while none has been counted yet (issue 10, item 11). Checking the count and
 * recording the attempt run without an await in between, so no other request can interleave.
 */
import { DomainError } from '../core/errors.ts';
import { isoDuration } from '../core/time.ts';
import type { SessionStore } from '../store/sessions.ts';

export interface AttemptLimits {
  /** Failures of one login within the window before every attempt answers 105. */
  loginMaxFailures: number;
  /** Failures from one client address within the window. */
  addressMaxFailures: number;
  windowMinutes: number;
}

export interface LoginAttempt {
  /** The password was right: the attempt is no failure, and the login's failures are forgotten. */
  succeeded(): void;
}

/**
 * Counts an attempt of `login` from `address`, or throws 105 (with `retry_after` and `retry_at`)
 * when either limit is reached. Unless `succeeded()` is called,
 * the attempt stays counted as a failure.
 */
export function beginLoginAttempt(sessions: SessionStore, limits: AttemptLimits, login: string, address: string, now: number): LoginAttempt {
  const windowMs = limits.windowMinutes * 60_000;
  const since = now - windowMs;
  const loginKey = `login:${login.trim().toLowerCase()}`;
  const addressKey = `address:${address}`;
  for (const [key, limit] of [
    [loginKey, limits.loginMaxFailures],
    [addressKey, limits.addressMaxFailures],
  ] as const) {
    if (sessions.failures(key, since) >= limit) {
      const retryAt = sessions.retryAt(key, since, limit, windowMs);
      const wait = retryAt - now;
      throw new DomainError(
        105,
        { retry_after: isoDuration(wait), retry_at: new Date(retryAt).toISOString() },
        `Login attempts limit exceeded, try again in ${Math.ceil(wait / 60000)} minute(s), at ${new Date(retryAt).toISOString()}`,
      );
    }
  }
  sessions.recordFailure(loginKey, now);
  const addressRecord = sessions.recordFailure(addressKey, now);
  return {
    succeeded() {
      sessions.clearFailures(loginKey);
      sessions.withdrawFailure(addressRecord);
      sessions.purgeFailures(since);
    },
  };
}
