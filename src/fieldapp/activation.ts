/**
 * Activation of the field app (docs/field-app.md): the operator gets a one-time code for a
 * tracker, the app exchanges it for a device token, and every app call authenticates with that
 * token. Codes are short and typeable; tokens are long and stored only as their SHA-256.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { DomainError } from '../core/errors.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { AppTokenRow } from '../store/field-app.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';

/** Letters and digits nobody confuses when reading them aloud or typing them (no 0/O, 1/I/L, U/V). */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTWXYZ';
/** Characters of a code (shown as two groups of four: `K7QM-4XRT`): 29^8, about 5 * 10^11. */
export const CODE_LENGTH = 8;
/** How long a code may be used. */
export const CODE_TTL_MS = 24 * 3_600_000;
/** The protocol an app tracker reports its positions with (the OsmAnd HTTP listener). */
export const APP_PROTOCOL = 'osmand';

export interface AppDevice {
  token: AppTokenRow;
  tracker: TrackerRow;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Upper case without spaces and dashes; undefined when it cannot be a code. */
export function normalizeCode(raw: string): string | undefined {
  const c = raw.replace(/[\s-]+/g, '').toUpperCase();
  if (c.length !== CODE_LENGTH) return undefined;
  for (const ch of c) if (!CODE_ALPHABET.includes(ch)) return undefined;
  return c;
}

/** The code as shown to people: `K7QM-4XRT`. */
export const formatCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

function newCode(): string {
  let c = '';
  for (let i = 0; i < CODE_LENGTH; i++) c += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return c;
}

/**
 * A tracker that may carry the app: an original (219 for clones), not blocked (208), reporting
 * with the app's protocol (214 otherwise: its positions could not come from the phone).
 */
export function requireAppTracker(t: TrackerRow): void {
  if (t.clone) throw new DomainError(219, {}, `Not allowed for clones of the device: tracker ${t.id}`);
  if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${t.id}`);
  if (t.protocol !== APP_PROTOCOL) throw new DomainError(214, {}, `Operation not supported by the device: the field app reports with ${APP_PROTOCOL}, tracker ${t.id} uses ${t.protocol}`);
}

/**
 * A new one-time code for the tracker (the previous one stops working); answers it and its expiry.
 * On the synchronous store: the admin commands (src/cli.ts) call it synchronously.
 */
export function createActivationCode(store: Store, t: TrackerRow, now: number): { code: string; expires: number } {
  requireAppTracker(t);
  // A collision with another tracker's live code is astronomically rare; try again then.
  for (;;) {
    const code = newCode();
    if (store.fieldApp.findCode(code)) continue;
    store.fieldApp.setCode(t.id, code, now, now + CODE_TTL_MS);
    return { code, expires: now + CODE_TTL_MS };
  }
}

/**
 * Exchanges a code for a device token. A wrong, used or expired code is 102; the code's tracker
 * deleted meanwhile 201, blocked 208, its owner's dealer blocked 11. The token is answered once.
 */
export async function activate(data: DataStore, rawCode: string, label: string, now: number): Promise<{ token: string; tracker: TrackerRow }> {
  const code = normalizeCode(rawCode);
  const row = code === undefined ? undefined : await data.fieldApp.findCode(code);
  if (!row || row.expires <= now) {
    if (row) await data.fieldApp.deleteCode(row.tracker_id);
    throw new DomainError(102, {}, 'Wrong activation code: unknown, used or expired; ask the operator for a new one');
  }
  const t = await data.trackers.getAny(row.tracker_id);
  if (!t || t.deleted) {
    await data.fieldApp.deleteCode(row.tracker_id);
    throw new DomainError(201, {}, `Not found in the database: tracker ${row.tracker_id} was deleted`);
  }
  if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${t.id}`);
  const owner = await data.users.get(t.user_id);
  if (!owner || (await data.users.isDealerBlocked(owner))) throw new DomainError(11);
  const token = randomBytes(32).toString('base64url');
  await data.transaction(async (tx) => {
    await tx.fieldApp.deleteCode(t.id);
    await tx.fieldApp.addToken(t.id, sha256(token), label, now);
  });
  return { token, tracker: t };
}

/**
 * The device behind a token, for the API kernel: 4 for an unknown or revoked token or a deleted
 * tracker, 208 for a blocked one, 11 when the owner's dealer blocked it.
 */
export async function appDevice(data: DataStore, token: string, now: number): Promise<{ device: AppDevice; user: UserRow; owner: UserRow }> {
  const row = await data.fieldApp.findToken(sha256(token), now);
  const tracker = row && (await data.trackers.getAny(row.tracker_id));
  if (!row || !tracker || tracker.deleted) throw new DomainError(4, {}, 'Device token unknown or revoked: activate the app again');
  if (tracker.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${tracker.id}`);
  const owner = await data.users.get(tracker.user_id);
  if (!owner) throw new DomainError(4);
  if (await data.users.isDealerBlocked(owner)) throw new DomainError(11);
  return { device: { token: row, tracker }, user: owner, owner };
}

/**
 * Whether the token still opens its tracker (open task watches ask again after a revocation). On
 * the synchronous store: the task watch (src/api/app-watch.ts) polls synchronously.
 */
export function tokenValid(store: Store, tokenId: number, trackerId: number): boolean {
  const t = store.trackers.getAny(trackerId);
  return !!t && !t.deleted && !t.blocked && store.fieldApp.tokens(trackerId).some((x) => x.id === tokenId);
}

/** Whether the tracker has an activated app (chat then goes to the app). */
export const hasApp = async (data: DataStore, trackerId: number) => (await data.fieldApp.tokens(trackerId)).length > 0;
