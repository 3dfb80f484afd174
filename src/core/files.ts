/**
 * What form validation needs to know about a file a submission names (issue 11): the forms code
 * (src/forms) checks file, photo and signature values against these facts; the files code
 * (src/files, src/store/files.ts) provides them. Kept here so neither imports the other.
 */
export type FileState = 'created' | 'in_progress' | 'uploaded';

export interface FileFacts {
  id: number;
  /** The master user owning the file. */
  user_id: number;
  /** 'image' for photos and signatures; 'file' for anything else. */
  type: 'image' | 'file';
  state: FileState;
  name: string;
  /** Bytes once uploaded; null before. */
  size: number | null;
  mime_type: string;
  /** The form field the file was created for (null: not a form file). */
  form_id: number | null;
  field_id: string | null;
}

/** Looks up files by id; ids that do not exist are absent from the map. */
export type FileLookup = (ids: readonly number[]) => Map<number, FileFacts>;
