/**
 * Domain errors: every failure the system reports carries one of the spec's codes, defined once
 * here with its description. The ground floor: domain parts, the store, the CLI and the workers
 * throw these; the HTTP adapter (src/api/errors.ts) maps each code to an HTTP status and the
 * `{success, status}` envelope. docs/errors.md documents the same table (a test keeps them in step).
 * Codes 1 and 3 are ours (the spec leaves the "general" kinds unshown); the rest are the spec's.
 */
export const ERROR_DESCRIPTIONS = {
  1: 'Internal error',
  3: 'Unknown API call',
  4: 'User not found or session ended',
  7: 'Invalid parameters',
  11: 'Access denied (dealer blocked)',
  13: 'Operation not permitted',
  15: 'Too many requests (rate limit exceeded)',
  101: 'Function disabled in demo mode',
  102: 'Wrong login or password',
  103: 'User not activated',
  104: 'Logins limit exceeded',
  105: 'Login attempts limit exceeded, try later',
  201: 'Not found in the database',
  202: 'Too many points in a zone',
  203: 'Delete entity associated with',
  204: 'Entity not found',
  208: 'Device blocked',
  209: 'Failed sending e-mail',
  211: 'Requested time span is too big',
  214: 'Operation or parameters not supported by the device',
  217: 'List contains non-existent entities',
  219: 'Not allowed for clones of the device',
  221: 'Device limit exceeded',
  222: 'Report plugin not found',
  223: 'Phone number already in use',
  229: 'Requested data is not ready yet',
  230: 'Not supported for this entity type',
  231: 'Entity type mismatch',
  233: 'No data file',
  234: 'Invalid data format',
  236: 'Feature unavailable due to tariff restrictions',
  241: 'Cannot change phone to a bundled SIM',
  242: 'Validation error',
  243: 'Device already connected',
  247: 'Entity already exists',
  249: 'Operation available for clones only',
  252: 'Device already corrupted',
  255: 'Invalid task state',
  263: 'No change needed, old and new values are the same',
  264: 'Timeout not reached',
  265: 'Already done',
  267: 'Too many files',
  268: 'Over quota',
  271: 'File too large',
} as const satisfies Record<number, string>;

export type ErrorCode = keyof typeof ERROR_DESCRIPTIONS;

/** A failure with its spec code, an optional more precise description, and call-specific members. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly extra: Record<string, unknown> = {},
    description?: string,
  ) {
    super(description ?? ERROR_DESCRIPTIONS[code]);
  }
}

/** Code 7 naming the parameter(s) at fault. */
export function invalidParams(errors: Array<{ parameter: string; error: string }>): DomainError {
  const names = errors.map((e) => e.parameter).join(', ');
  return new DomainError(7, { errors }, `Invalid parameters: ${names}`);
}
