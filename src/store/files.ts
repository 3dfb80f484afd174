/**
 * Files (migrations 018 and 020; docs/files.md): the rows of uploaded and announced files, the
 * limits their creation checks (files per form field, the owner's storage), the upload's state
 * moves, the expiry sweep and what the blob collector needs, and the avatar names on places,
 * employees and trackers. The bytes themselves live on disk (src/files/blobs.ts).
 */
import type { FileState } from '../core/files.ts';
import type { DB } from './db.ts';
import { JSON_LIST } from './conditions.ts';

export type AvatarEntity = 'place' | 'employee' | 'tracker';

export interface FileRow {
  id: number;
  user_id: number;
  type: 'image' | 'file';
  state: FileState;
  name: string;
  max_size: number;
  size: number | null;
  mime_type: string;
  /** JSON `{orientation}` or null. */
  metadata: string | null;
  created: number;
  uploaded: number | null;
  expires: number | null;
  storage_key: string | null;
  form_id: number | null;
  field_id: string | null;
  submitted: number;
  checkin_id: number | null;
  avatar_of: AvatarEntity | null;
  upload_token: string | null;
  preview: number;
  /** The tracker a check-in file was announced for (migration 043): only its check-in binds it; null: any of the owner's. */
  tracker_id: number | null;
}

export interface NewFile {
  userId: number;
  type: 'image' | 'file';
  name: string;
  maxSize: number;
  mimeType: string;
  created: number;
  expires: number | null;
  token: string | null;
  formId?: number | null;
  fieldId?: string | null;
  avatarOf?: AvatarEntity | null;
  trackerId?: number | null;
}

/** What an upload found out about the bytes it stored. */
export interface UploadedFacts {
  size: number;
  storageKey: string;
  mimeType: string;
  metadata: string | null;
  preview: boolean;
  uploaded: number;
}

const AVATAR_TABLES: Record<AvatarEntity, string> = { place: 'places', employee: 'employees', tracker: 'trackers' };

export class FileStore {
  private getStmt;
  private getAnyStmt;
  private insertStmt;
  private usedStmt;
  private openInFieldStmt;
  private startStmt;
  private abortStmt;
  private finishStmt;
  private expiredStmt;
  private deleteStmt;
  private resetStmt;
  private keyUsedStmt;
  private formFieldsStmt;
  private ofFormStmt;
  private ofCheckinsStmt;
  private bindStmt;
  private byKeyStmt;
  private avatarStmts;
  private iconStmts;
  private avatarUsedStmts;

  constructor(private db: DB) {
    this.getStmt = db.prepare<[number, number], FileRow>('SELECT * FROM files WHERE id = ? AND user_id = ?');
    this.getAnyStmt = db.prepare<[number], FileRow>('SELECT * FROM files WHERE id = ?');
    this.insertStmt = db.prepare(`INSERT INTO files (user_id, type, name, max_size, mime_type, created, expires, upload_token, form_id, field_id, avatar_of, tracker_id)
      VALUES (@userId, @type, @name, @maxSize, @mimeType, @created, @expires, @token, @formId, @fieldId, @avatarOf, @trackerId)`);
    // Bytes the owner holds or has announced: a file not yet uploaded counts with its limit.
    this.usedStmt = db.prepare<[number], number>("SELECT COALESCE(SUM(CASE WHEN state = 'uploaded' THEN size ELSE max_size END), 0) FROM files WHERE user_id = ?").pluck();
    this.openInFieldStmt = db.prepare<[number, string], number>('SELECT COUNT(*) FROM files WHERE form_id = ? AND field_id = ? AND submitted = 0').pluck();
    this.startStmt = db.prepare("UPDATE files SET state = 'in_progress' WHERE id = ? AND state = 'created'");
    this.abortStmt = db.prepare("UPDATE files SET state = 'created' WHERE id = ? AND state = 'in_progress'");
    this.finishStmt = db.prepare(`UPDATE files SET state = 'uploaded', size = @size, storage_key = @storageKey, mime_type = @mimeType, metadata = @metadata,
      preview = @preview, uploaded = @uploaded, expires = NULL, upload_token = NULL WHERE id = @id AND state = 'in_progress'`);
    this.expiredStmt = db.prepare<[number, number], { id: number }>("SELECT id FROM files WHERE expires < ? AND state <> 'uploaded' ORDER BY expires LIMIT ?");
    this.deleteStmt = db.prepare('DELETE FROM files WHERE id = ?');
    this.resetStmt = db.prepare("UPDATE files SET state = 'created' WHERE state = 'in_progress'");
    this.keyUsedStmt = db.prepare<[string], number>('SELECT EXISTS (SELECT 1 FROM files WHERE storage_key = ?)').pluck();
    this.formFieldsStmt = db.prepare<[number, number], { id: number; fields: string; task_id: number | null }>('SELECT id, fields, task_id FROM forms WHERE id = ? AND user_id = ?');
    this.ofFormStmt = db.prepare<[number], FileRow>('SELECT * FROM files WHERE form_id = ? ORDER BY id');
    this.ofCheckinsStmt = db.prepare<[string], FileRow>(`SELECT * FROM files WHERE checkin_id IN ${JSON_LIST} ORDER BY checkin_id, id`);
    // The same rule as freeToBind (src/files/files.ts), in the statement that binds.
    this.bindStmt = db.prepare(
      "UPDATE files SET checkin_id = ? WHERE id = ? AND user_id = ? AND state = 'uploaded' AND checkin_id IS NULL AND form_id IS NULL AND avatar_of IS NULL AND (tracker_id IS NULL OR tracker_id = ?)",
    );
    this.byKeyStmt = db.prepare<[string], FileRow>('SELECT * FROM files WHERE storage_key = ? AND avatar_of IS NOT NULL');
    const each = <T>(f: (table: string) => T) => Object.fromEntries(Object.entries(AVATAR_TABLES).map(([k, t]) => [k, f(t)])) as Record<AvatarEntity, T>;
    this.avatarStmts = each((t) => db.prepare(`UPDATE ${t} SET avatar_file_name = ? WHERE id = ? AND user_id = ?`));
    this.iconStmts = each((t) => (t === 'trackers' ? null : db.prepare(`UPDATE ${t} SET icon_id = ? WHERE id = ? AND user_id = ?`)));
    this.avatarUsedStmts = each((t) => db.prepare<[string], number>(`SELECT EXISTS (SELECT 1 FROM ${t} WHERE avatar_file_name = ?)`).pluck());
  }

  get(userId: number, id: number): FileRow | undefined {
    return this.getStmt.get(id, userId);
  }
  /** Any user's file (the upload URL carries the id and a token, not a session). */
  getAny(id: number): FileRow | undefined {
    return this.getAnyStmt.get(id);
  }
  insert(f: NewFile): number {
    return Number(
      this.insertStmt.run({ ...f, formId: f.formId ?? null, fieldId: f.fieldId ?? null, avatarOf: f.avatarOf ?? null, trackerId: f.trackerId ?? null }).lastInsertRowid,
    );
  }
  /** Bytes the owner's files take (uploaded) or may take (announced, at their limit). */
  usedBytes(userId: number): number {
    return this.usedStmt.get(userId)!;
  }
  /** The owner's uploaded files: how many, and their bytes (file/stats/read). */
  uploadedStats(userId: number): { count: number; bytes: number } {
    return this.db
      .prepare<[number], { count: number; bytes: number }>("SELECT COUNT(*) AS count, COALESCE(SUM(size), 0) AS bytes FROM files WHERE user_id = ? AND state = 'uploaded'")
      .get(userId)!;
  }
  /** Files of a form field not yet part of a submission. */
  openInField(formId: number, fieldId: string): number {
    return this.openInFieldStmt.get(formId, fieldId)!;
  }
  /** The form's field definitions (JSON) when it is the owner's. */
  formFields(userId: number, formId: number): { id: number; fields: string; task_id: number | null } | undefined {
    return this.formFieldsStmt.get(formId, userId);
  }
  /** created -> in_progress; false when the file is not waiting for its bytes. */
  startUpload(id: number): boolean {
    return this.startStmt.run(id).changes === 1;
  }
  /** in_progress -> created (an interrupted or refused upload may be tried again until it expires). */
  abortUpload(id: number): void {
    this.abortStmt.run(id);
  }
  /** in_progress -> uploaded; false when the row went meanwhile (expired and swept). */
  finishUpload(id: number, f: UploadedFacts): boolean {
    return this.finishStmt.run({ id, ...f, preview: f.preview ? 1 : 0 }).changes === 1;
  }
  /** No upload survives a restart: files left in_progress wait for their bytes again. */
  resetInProgress(): number {
    return this.resetStmt.run().changes;
  }
  /** Files not uploaded before they expired, at most `limit` (the sweep deletes them). */
  expired(now: number, limit: number): number[] {
    return this.expiredStmt.all(now, limit).map((r) => r.id);
  }
  delete(id: number): void {
    this.deleteStmt.run(id);
  }
  /** Whether any file row refers to this blob (the collector keeps those). */
  keyUsed(key: string): boolean {
    return this.keyUsedStmt.get(key) === 1;
  }
  ofForm(formId: number): FileRow[] {
    return this.ofFormStmt.all(formId);
  }
  ofCheckins(checkinIds: readonly number[]): FileRow[] {
    return checkinIds.length ? this.ofCheckinsStmt.all(JSON.stringify(checkinIds)) : [];
  }
  /** Binds an uploaded, unbound file of the owner, free for the check-in's tracker, to the check-in; false when it is not such a file. */
  bindToCheckin(userId: number, fileId: number, checkinId: number, trackerId: number): boolean {
    return this.bindStmt.run(checkinId, fileId, userId, trackerId).changes === 1;
  }

  // --- Avatars ---

  avatarByName(name: string): FileRow | undefined {
    return this.byKeyStmt.get(name);
  }
  /** Sets (or clears) the avatar name of the owner's entity; false when it is not the owner's. */
  setAvatar(kind: AvatarEntity, userId: number, id: number, name: string | null): boolean {
    return this.avatarStmts[kind].run(name, id, userId).changes === 1;
  }
  /** Sets the icon of a place or employee (trackers have none); false when it is not the owner's. */
  setIcon(kind: 'place' | 'employee', userId: number, id: number, iconId: number | null): boolean {
    return this.iconStmts[kind]!.run(iconId, id, userId).changes === 1;
  }
  /** Whether a place, employee or tracker still shows this avatar. */
  avatarUsed(name: string): boolean {
    return (Object.keys(AVATAR_TABLES) as AvatarEntity[]).some((k) => this.avatarUsedStmts[k].get(name) === 1);
  }
  /** Avatar rows nobody shows any more, uploaded before `before` (a fresh upload is being assigned). */
  unusedAvatars(before: number, limit: number): FileRow[] {
    const shown = (Object.values(AVATAR_TABLES) as string[]).map((t) => `SELECT avatar_file_name FROM ${t} WHERE avatar_file_name = f.storage_key`).join(' UNION ALL ');
    return this.db.prepare<[number, number], FileRow>(`SELECT * FROM files f WHERE avatar_of IS NOT NULL AND uploaded < ? AND NOT EXISTS (${shown}) LIMIT ?`).all(before, limit);
  }
  setName(id: number, name: string): void {
    this.db.prepare('UPDATE files SET name = ? WHERE id = ?').run(name, id);
  }
  /** An avatar, stored at once (no announced upload). */
  insertUploaded(f: NewFile & UploadedFacts): number {
    return this.transaction(() => {
      const id = this.insert(f);
      this.startUpload(id);
      this.finishUpload(id, f);
      return id;
    });
  }
  /** Runs `fn` in one write transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
