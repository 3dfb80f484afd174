/**
 * A render worker: turns one report into a file (src/reports/render) and hands its bytes back
 * transferred. Pure: nothing is read or stored here but the fonts the PDF embeds.
 */
import { Piscina } from 'piscina';
import { renderBytes, reportOf } from '../src/reports/render/index.ts';
import type { RenderTask } from '../src/reports/render/pool.ts';

export default async function render(task: RenderTask): Promise<ReturnType<typeof Piscina.move>> {
  const file = await renderBytes(task.format, reportOf(task.report), task.options);
  // A Buffer may be a slice of a shared pool: copy into an array of its own, which can be moved.
  const body = new Uint8Array(file.byteLength);
  body.set(file);
  return Piscina.move(body);
}
