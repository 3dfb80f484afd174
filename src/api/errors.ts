/**
 * The HTTP side of the error registry: each spec code (src/core/errors.ts) with its HTTP status,
 * and the `{success: false, status: {code, description}}` body every failure answers with.
 */
import { DomainError, ERROR_DESCRIPTIONS, type ErrorCode } from '../core/errors.ts';

const HTTP_STATUS = {
  1: 500,
  3: 404,
  4: 403,
  7: 400,
  11: 403,
  13: 403,
  15: 429,
  101: 403,
  102: 401,
  103: 403,
  104: 429,
  105: 429,
  201: 404,
  202: 400,
  203: 409,
  204: 404,
  208: 403,
  209: 502,
  211: 400,
  214: 400,
  217: 400,
  219: 403,
  221: 403,
  222: 404,
  223: 409,
  229: 409,
  230: 400,
  231: 400,
  233: 400,
  234: 400,
  236: 402,
  241: 400,
  242: 400,
  243: 409,
  247: 409,
  249: 400,
  252: 409,
  255: 409,
  263: 409,
  264: 429,
  265: 409,
  267: 400,
  268: 403,
  271: 413,
} as const satisfies Record<ErrorCode, number>;

/** Every code with its HTTP status and description (OpenAPI, docs test). */
export const ERRORS = Object.fromEntries(
  (Object.keys(ERROR_DESCRIPTIONS).map(Number) as ErrorCode[]).map((c) => [c, { status: HTTP_STATUS[c], description: ERROR_DESCRIPTIONS[c] }]),
) as Record<ErrorCode, { status: number; description: string }>;

/** Code-7 errors of a body over the size limit: answered with HTTP 413 instead of 7's 400. */
const tooLarge = new WeakSet<DomainError>();

/** Code 7 naming `(body)` for a body over `limit` bytes (FSM_BODY_LIMIT), answered with HTTP 413. */
export function bodyTooLarge(limit: number): DomainError {
  const e = new DomainError(7, { errors: [{ parameter: '(body)', error: `exceeds the limit of ${limit} bytes` }] }, `Request body is larger than the limit of ${limit} bytes`);
  tooLarge.add(e);
  return e;
}

export function httpStatus(e: DomainError): number {
  return tooLarge.has(e) ? 413 : HTTP_STATUS[e.code];
}

export function errorBody(e: DomainError): Record<string, unknown> {
  return { success: false, status: { code: e.code, description: e.message }, ...e.extra };
}

/** The spec code each failed request answered with, for /metrics' `error` label (src/api/ops.ts). */
const answered = new WeakMap<object, number>();

/** Notes the spec code a request fails with (every error answer goes through here or errorBody's callers). */
export function noteAnswerCode(request: object, code: number): void {
  answered.set(request, code);
}

/** The spec code a request failed with; 0 when it did not fail. */
export function answerCodeOf(request: object): number {
  return answered.get(request) ?? 0;
}
