/**
 * The field app's calls to the field-app API (docs/field-app.md): POSTs of JSON to /v2/fsm/app/...
 * with the device token in `Authorization: NVX`. The envelope and the error classes are shared with
 * the console (web/shared/api.ts): ApiError carries the documented code and, for 242, the fields'
 * errors; NetworkError means no answer (offline), so the outbox keeps the work.
 */
import { answerOf, ApiError, NetworkError, postCall } from '../../shared/api.ts';

export { ApiError, NetworkError };

export interface Device {
  token: string;
  trackerId: number;
  label: string;
  timeZone: string;
}

const KEY = 'fsm.app.device';

export function loadDevice(): Device | null {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? 'null');
  } catch {
    return null;
  }
}
export function saveDevice(d: Device | null) {
  if (d) localStorage.setItem(KEY, JSON.stringify(d));
  else localStorage.removeItem(KEY);
}

/** A 242's field errors, by field id. */
export type FieldErrors = Record<string, string>;
export class FormRefused extends ApiError {
  constructor(
    code: number,
    description: string,
    readonly fields: FieldErrors,
  ) {
    super(code, description);
  }
}

export async function call<T = Record<string, unknown>>(path: string, params: Record<string, unknown>, token?: string): Promise<T> {
  try {
    return await postCall<T>(path, params, { token });
  } catch (e) {
    if (e instanceof ApiError && e.code === 242) throw new FormRefused(e.code, e.description, Object.fromEntries(e.errors.map((x) => [x.parameter, x.error])));
    throw e;
  }
}

/** Sends a file's bytes to the upload url app/.../file/create answered (multipart, the file last). */
export async function upload(url: string, fields: Record<string, string>, fieldName: string, blob: Blob, filename: string): Promise<void> {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append(fieldName, blob, filename);
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', body });
  } catch (e) {
    throw new NetworkError(String(e));
  }
  if (!res.ok) await answerOf(res);
}

/** Wall-clock time in the owner's zone, as the API takes it (yyyy-MM-dd HH:mm:ss). */
export function zoned(ms: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}
