/**
 * An upload worker: unzips, parses and does the geometry of one uploaded file (KML/KMZ zones,
 * place CSV) and answers plain data (src/imports/upload-tasks.ts). Nothing is stored here: the
 * main thread stores in batches, between other calls.
 */
import { runUploadTask, type UploadAnswer, type UploadTask } from '../src/imports/upload-tasks.ts';

export default function uploadTask(task: UploadTask): UploadAnswer {
  return runUploadTask(task);
}
