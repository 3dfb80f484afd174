/**
 * The outbox (docs/field-app.md, "Offline"): everything the employee does is first written to
 * IndexedDB, then sent in the order it was made. An item leaves the outbox only once the server
 * answered it; without an answer (offline) sending stops and resumes when the connection returns.
 * A form's files are uploaded one by one and each upload's file id is written back into the item,
 * so a retry never uploads a file twice. A working status chosen offline waits here too. A refusal (an API error) keeps the item with its error,
 * shown to the employee, and the next items go on.
 */
import { ApiError, call, NetworkError, upload, zoned, type Device } from './api.ts';

export interface Position {
  time: number;
  lat: number;
  lng: number;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
  altitude: number | null;
}

export interface PendingFile {
  blob: Blob;
  name: string;
  /** Set once uploaded. */
  fileId?: number;
}

export interface FormJob {
  kind: 'form';
  /** The idempotency key the server keeps the answer under: a resend after a lost answer is not a second submission. */
  key: string;
  taskId: number;
  formId: number;
  label: string;
  /** Values of the fields without files, as the API takes them. */
  values: Record<string, unknown>;
  /** Files by field id (photos, files; a signature is one PNG). */
  files: Record<string, { type: 'photo' | 'file' | 'signature'; list: PendingFile[] }>;
  location: { lat: number; lng: number };
  time: number;
}
export interface PositionJob {
  kind: 'position';
  position: Position;
  /** The idempotency key of the batch it was first sent in (set before that first try). */
  batch?: string;
}
export interface ChatJob {
  kind: 'chat';
  key: string;
  text: string;
  time: number;
}
export interface CheckinJob {
  kind: 'checkin';
  key: string;
  comment: string;
  photos: PendingFile[];
  location: { lat: number; lng: number; precision?: number };
  time: number;
}
export interface StatusJob {
  kind: 'status';
  key: string;
  statusId: number;
  label: string;
}
export type Job = FormJob | PositionJob | ChatJob | CheckinJob | StatusJob;
export type Item = Job & { id: number; error?: string; fieldErrors?: Record<string, string> };

const DB = 'fsm-field-app';
const STORE = 'outbox';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id', autoIncrement: true });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const t = db.transaction(STORE, mode);
      const req = fn(t.objectStore(STORE));
      t.oncomplete = () => resolve(req.result);
      t.onerror = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}

const listeners = new Set<() => void>();
export function onOutboxChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
const changed = () => listeners.forEach((fn) => fn());

/** A random key (crypto.randomUUID needs a secure context; a phone may open the app over plain HTTP on a LAN). */
export function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function enqueue(job: Job): Promise<void> {
  await tx('readwrite', (s) => s.add(job));
  changed();
}
export const items = (): Promise<Item[]> => tx('readonly', (s) => s.getAll() as IDBRequest<Item[]>);
const put = (item: Item) => tx('readwrite', (s) => s.put(item));
/** Several items written in one transaction. */
async function putAll(list: Item[]): Promise<void> {
  const db = await open();
  try {
    await new Promise<void>((resolve, reject) => {
      const t = db.transaction(STORE, 'readwrite');
      for (const i of list) t.objectStore(STORE).put(i);
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}
const remove = (id: number) => tx('readwrite', (s) => s.delete(id));
export async function clearOutbox(): Promise<void> {
  await tx('readwrite', (s) => s.clear());
  changed();
}

/** Positions sent in one call at most. */
const BATCH = 50;

/**
 * The positions at the head of the outbox as one batch with its idempotency key: a batch already
 * tried keeps its items and key (written into each item before the first try), so a resend after a
 * lost answer is the same batch and the server stores it once; otherwise a new batch of up to 50.
 */
async function positionBatch(all: Item[]): Promise<{ key: string; run: (Item & PositionJob)[] }> {
  const head = all[0] as Item & PositionJob;
  if (head.batch) return { key: head.batch, run: all.filter((i): i is Item & PositionJob => i.kind === 'position' && i.batch === head.batch) };
  const run: (Item & PositionJob)[] = [];
  for (const i of all) {
    if (i.kind !== 'position' || i.batch || run.length >= BATCH) break;
    run.push(i);
  }
  const key = newKey();
  for (const i of run) i.batch = key;
  await putAll(run);
  return { key, run };
}

async function sendPositions(device: Device, key: string, list: PositionJob[]): Promise<void> {
  const positions = list.map(({ position: p }) => ({
    time: zoned(p.time, device.timeZone),
    lat: p.lat,
    lng: p.lng,
    ...(p.accuracy === null ? {} : { accuracy: p.accuracy }),
    // The browser gives m/s; the API takes km/h.
    ...(p.speed === null ? {} : { speed: Math.round(p.speed * 36) / 10 }),
    ...(p.heading === null ? {} : { heading: p.heading }),
    ...(p.altitude === null ? {} : { altitude: p.altitude }),
  }));
  try {
    await call('app/position/send', { positions, idempotency_key: key }, device.token);
  } catch (e) {
    // An internal error (the store could not take them): the batch waits and is sent again.
    if (e instanceof ApiError && e.code === 1) throw new NetworkError(e.message);
    throw e;
  }
}

async function sendCheckin(device: Device, item: Item & CheckinJob): Promise<void> {
  for (const f of item.photos) {
    if (f.fileId !== undefined) continue;
    const a = await call<{ file_id: number; url: string; fields: Record<string, string>; file_field_name: string }>('app/checkin/file/create', { type: 'image', size: f.blob.size, filename: f.name }, device.token);
    await upload(a.url, a.fields, a.file_field_name, f.blob, f.name);
    f.fileId = a.file_id;
    await put(item);
  }
  await call('app/checkin/create', { location: item.location, time: zoned(item.time, device.timeZone), comment: item.comment || null, file_ids: item.photos.map((f) => f.fileId!), idempotency_key: item.key }, device.token);
}

async function sendForm(device: Device, item: Item & FormJob): Promise<void> {
  const values: Record<string, unknown> = { ...item.values };
  for (const [fieldId, group] of Object.entries(item.files)) {
    for (const f of group.list) {
      if (f.fileId !== undefined) continue;
      const a = await call<{ file_id: number; url: string; fields: Record<string, string>; file_field_name: string }>('app/form/file/create', { form_id: item.formId, field_id: fieldId, size: f.blob.size, filename: f.name }, device.token);
      await upload(a.url, a.fields, a.file_field_name, f.blob, f.name);
      f.fileId = a.file_id;
      await put(item); // uploaded: never again
    }
    const ids = group.list.map((f) => f.fileId!);
    values[fieldId] = group.type === 'signature' ? { type: 'signature', file_id: ids[0] ?? null } : { type: group.type, file_ids: ids };
  }
  await call('app/form/submit', { task_id: item.taskId, values, location: item.location, time: zoned(item.time, device.timeZone), idempotency_key: item.key }, device.token);
}

/** A working status chosen (offline or not): 263 means it is current already (the supervisor set it meanwhile), which is what was wanted. */
async function sendStatus(device: Device, item: Item & StatusJob): Promise<void> {
  try {
    await call('app/status/assign', { new_status_id: item.statusId, idempotency_key: item.key }, device.token);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 263)) throw e;
  }
}

let running: Promise<void> | null = null;
/** When a send last got no answer (ms). */
let lastNoAnswer = 0;

/**
 * A send for a new position: skipped while the browser is offline or the last send got no answer
 * less than 10 s ago (the 15 s timer and the return of the connection send then). A position batch
 * is fixed at its first try, so trying at every fix while the connection is gone would make batches
 * of one position.
 */
export function flushSoon(device: Device, onRevoked: () => void): Promise<void> {
  if (Date.now() - lastNoAnswer < 10_000) return Promise.resolve();
  return flush(device, onRevoked);
}

/** Sends what waits, in order; resolves when the outbox is empty or the connection is gone. */
export function flush(device: Device, onRevoked: () => void): Promise<void> {
  // Offline, as the browser knows: nothing can leave (the 'online' event sends).
  if (!navigator.onLine) return Promise.resolve();
  running ??= (async () => {
    try {
      for (;;) {
        const all = (await items()).filter((i) => !i.error);
        if (!all.length) return;
        const first = all[0];
        try {
          if (first.kind === 'position') {
            const { key, run } = await positionBatch(all);
            await sendPositions(device, key, run);
            for (const i of run) await remove(i.id);
          } else if (first.kind === 'form') {
            await sendForm(device, first);
            await remove(first.id);
          } else if (first.kind === 'checkin') {
            await sendCheckin(device, first);
            await remove(first.id);
          } else if (first.kind === 'status') {
            await sendStatus(device, first);
            await remove(first.id);
          } else {
            await call('app/chat/send', { message: first.text, idempotency_key: first.key }, device.token);
            await remove(first.id);
          }
        } catch (e) {
          if (e instanceof NetworkError) {
            lastNoAnswer = Date.now();
            return;
          }
          if (e instanceof ApiError && e.code === 4) {
            onRevoked();
            return;
          }
          const fieldErrors = (e as { fields?: Record<string, string> }).fields;
          await put({ ...first, error: e instanceof Error ? e.message : String(e), ...(fieldErrors ? { fieldErrors } : {}) });
        }
        changed();
      }
    } finally {
      running = null;
      changed();
    }
  })();
  return running;
}
