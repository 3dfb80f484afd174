/**
 * The error registry: every code the API answers with, defined once with its description and
 * HTTP status (docs/errors.md documents the same table; a test keeps the two in step).
 * Codes 1 and 3 are ours (the spec leaves the "general" kinds unshown); the rest are the spec's.
 */
export const ERRORS = {
  1: { status: 500, description: 'Internal error' },
  3: { status: 404, description: 'Unknown API call' },
  4: { status: 403, description: 'User not found or session ended' },
  7: { status: 400, description: 'Invalid parameters' },
  11: { status: 403, description: 'Access denied (dealer blocked)' },
  13: { status: 403, description: 'Operation not permitted' },
  15: { status: 429, description: 'Too many requests (rate limit exceeded)' },
  101: { status: 403, description: 'Function disabled in demo mode' },
  102: { status: 401, description: 'Wrong login or password' },
  103: { status: 403, description: 'User not activated' },
  104: { status: 429, description: 'Logins limit exceeded' },
  105: { status: 429, description: 'Login attempts limit exceeded, try later' },
  201: { status: 404, description: 'Not found in the database' },
  202: { status: 400, description: 'Too many points in a zone' },
  203: { status: 409, description: 'Delete entity associated with' },
  204: { status: 404, description: 'Entity not found' },
  208: { status: 403, description: 'Device blocked' },
  209: { status: 502, description: 'Failed sending e-mail' },
  211: { status: 400, description: 'Requested time span is too big' },
  214: { status: 400, description: 'Operation or parameters not supported by the device' },
  217: { status: 400, description: 'List contains non-existent entities' },
  219: { status: 403, description: 'Not allowed for clones of the device' },
  221: { status: 403, description: 'Device limit exceeded' },
  222: { status: 404, description: 'Report plugin not found' },
  223: { status: 409, description: 'Phone number already in use' },
  229: { status: 409, description: 'Requested data is not ready yet' },
  230: { status: 400, description: 'Not supported for this entity type' },
  231: { status: 400, description: 'Entity type mismatch' },
  233: { status: 400, description: 'No data file' },
  234: { status: 400, description: 'Invalid data format' },
  236: { status: 402, description: 'Feature unavailable due to tariff restrictions' },
  241: { status: 400, description: 'Cannot change phone to a bundled SIM' },
  242: { status: 400, description: 'Validation error' },
  243: { status: 409, description: 'Device already connected' },
  247: { status: 409, description: 'Entity already exists' },
  249: { status: 400, description: 'Operation available for clones only' },
  252: { status: 409, description: 'Device already corrupted' },
  255: { status: 409, description: 'Invalid task state' },
  263: { status: 409, description: 'No change needed, old and new values are the same' },
  264: { status: 429, description: 'Timeout not reached' },
  265: { status: 409, description: 'Already done' },
  268: { status: 403, description: 'Over quota' },
} as const satisfies Record<number, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** A failure answer: the code, an optional more precise description, and call-specific members. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly extra: Record<string, unknown> = {},
    description?: string,
  ) {
    super(description ?? ERRORS[code].description);
  }
  get httpStatus(): number {
    return ERRORS[this.code].status;
  }
  body(): Record<string, unknown> {
    return { success: false, status: { code: this.code, description: this.message }, ...this.extra };
  }
}

/** Code 7 naming the parameter(s) at fault. */
export function invalidParams(errors: Array<{ parameter: string; error: string }>): ApiError {
  const names = errors.map((e) => e.parameter).join(', ');
  return new ApiError(7, { errors }, `Invalid parameters: ${names}`);
}
