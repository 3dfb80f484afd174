/** A file part of a multipart upload, as handlers and the import functions receive it. */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  data: Buffer;
}
