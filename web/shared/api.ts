/**
 * What the console and the field app share of talking to the public API (docs/api.md): the error
 * classes and one POST to /v2/fsm/<path> answered in the {success, status} envelope. A refusal throws
 * ApiError with the documented code (docs/errors.md); no answer at all (offline, a proxy's page)
 * throws NetworkError, which the field app's outbox takes as "try again later".
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    /** The bad parameters (code 7) or, for a form's 242, the fields (`parameter` is the field id). */
    readonly errors: { parameter: string; error: string }[] = [],
    /** The answer's other members (e.g. an upload's `row_errors`, `external_ids`, `max_bytes`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(`${description} (code ${code})`);
  }
}

/** Thrown when the server cannot be reached at all (no answer, or not the API's envelope). */
export class NetworkError extends Error {}

export const API_BASE = '/v2/fsm/';

type Envelope = { success?: boolean; status?: { code: number; description: string }; errors?: unknown; [member: string]: unknown };

/**
 * One call: JSON (or multipart form data, the browser then sets the type) POSTed to /v2/fsm/<path>,
 * with `Authorization: NVX <token>` when a token is given.
 */
export async function postCall<T>(path: string, body: Record<string, unknown> | FormData, opts: { token?: string; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  const auth: Record<string, string> = opts.token ? { authorization: `NVX ${opts.token}` } : {};
  try {
    const init = body instanceof FormData ? { body, headers: auth } : { headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) };
    res = await fetch(API_BASE + path, { method: 'POST', ...init, signal: opts.signal });
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    throw new NetworkError(String(e));
  }
  return answerOf<T>(res);
}

/** The envelope of an answer: its members on success, ApiError on a refusal. */
export async function answerOf<T>(res: Response): Promise<T> {
  let data: Envelope;
  try {
    data = await res.json();
  } catch {
    throw new NetworkError(`HTTP ${res.status} without an API answer`);
  }
  if (data.success) return data as T;
  // `errors` is the list of bad parameters (code 7) or fields (242, by `field_id`); an upload's
  // answer uses the name for a count, which stays in `extra`.
  const { success: _s, status: _st, ...extra } = data;
  let errors: { parameter: string; error: string }[] | undefined;
  if (Array.isArray(data.errors)) {
    delete extra.errors;
    errors = (data.errors as { parameter?: string; field_id?: string; error: string }[]).map((e) => ({ ...e, parameter: e.parameter ?? e.field_id ?? '' }));
  }
  throw new ApiError(data.status?.code ?? 1, data.status?.description ?? `HTTP ${res.status}`, errors, extra);
}
