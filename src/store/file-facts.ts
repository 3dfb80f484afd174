/**
 * What the forms code needs of the files table (issue 11): the facts of files by id (the FileLookup
 * of src/core/files.ts), the files of a form, and the `submitted` marks a submission sets. The files
 * code (src/store/files.ts) owns the rest of the table's life (upload, expiry, collection).
 */
import type { FileFacts } from '../core/files.ts';
import type { DB } from './db.ts';

/** A row of the files table as the forms code shows it (docs/forms.md, "Files of a form"). */
export interface FileRow extends FileFacts {
  max_size: number;
  metadata: string | null;
  created: number;
  uploaded: number | null;
  submitted: number;
  checkin_id: number | null;
}

const FACTS = 'id, user_id, type, state, name, size, mime_type, form_id, field_id';

export class FileFactsStore {
  private lookupStmt;
  private ofFormStmt;
  private clearStmt;
  private markStmt;

  constructor(db: DB) {
    this.lookupStmt = db.prepare<[string], FileFacts>(`SELECT ${FACTS} FROM files WHERE id IN (SELECT value FROM json_each(?))`);
    this.ofFormStmt = db.prepare<[number], FileRow>(`SELECT ${FACTS}, max_size, metadata, created, uploaded, submitted, checkin_id FROM files WHERE form_id = ? ORDER BY id`);
    this.clearStmt = db.prepare('UPDATE files SET submitted = 0 WHERE form_id = ? AND field_id = ? AND submitted <> 0');
    this.markStmt = db.prepare('UPDATE files SET submitted = 1 WHERE form_id = ? AND field_id = ? AND id IN (SELECT value FROM json_each(?))');
  }

  /** A FileLookup (src/core/files.ts): ids that do not exist are absent from the map. */
  readonly lookup = (ids: readonly number[]): Map<number, FileFacts> => {
    const out = new Map<number, FileFacts>();
    if (!ids.length) return out;
    for (const f of this.lookupStmt.all(JSON.stringify(ids))) out.set(f.id, f);
    return out;
  };

  /** Every file created for the form's fields, submitted or not. */
  ofForm(formId: number): FileRow[] {
    return this.ofFormStmt.all(formId);
  }

  /** After a submission: the named files of each field are submitted, the field's others are not. */
  markSubmitted(formId: number, byField: ReadonlyMap<string, readonly number[]>): void {
    for (const [fieldId, ids] of byField) {
      this.clearStmt.run(formId, fieldId);
      if (ids.length) this.markStmt.run(formId, fieldId, JSON.stringify(ids));
    }
  }
}
