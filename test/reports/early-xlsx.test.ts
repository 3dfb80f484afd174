/**
 * The xlsx of a big report started at its retrieve (src/reports/render/early.ts): the download gets
 * that file (one render, from the same JSON), small reports and deleted ones are not kept, at most
 * `max` files for `ttlMs`, and a failed early render is rendered again at the download.
 */
import { describe, expect, it } from 'vitest';
import { EarlyXlsx } from '../../src/reports/render/early.ts';
import { fileKind, type FileFormat, type RenderedFile, type ReportFiles, type ReportInput } from '../../src/reports/render/index.ts';

/** Renders "xlsx of <json>" and counts; `fail` makes the next render fail. */
function fakeFiles() {
  const f = {
    renders: [] as string[],
    fail: false,
    async render(format: FileFormat, report: ReportInput): Promise<RenderedFile> {
      const json = Buffer.from(report as Uint8Array).toString('utf8');
      f.renders.push(`${format}:${json.slice(0, 8)}`);
      await new Promise((r) => setTimeout(r, 5));
      if (f.fail) {
        f.fail = false;
        throw new Error('render failed');
      }
      return { body: Buffer.from(`xlsx of ${json.slice(0, 8)}`), ...fileKind(format) };
    },
  };
  return f satisfies ReportFiles;
}

const json = (tag: string, size = 64) => new Uint8Array(Buffer.from(tag.padEnd(size, ' ')));
const never = () => Promise.reject(new Error('the stored body was read again'));

describe('EarlyXlsx', () => {
  it('a big report retrieved renders once; its downloads get that file', async () => {
    const files = fakeFiles();
    const early = new EarlyXlsx(files, { minBytes: 32 });
    early.retrieved(7, json('report07'));
    early.retrieved(7, json('report07')); // retrieved again: not started twice
    expect(files.renders).toEqual(['xlsx:report07']);
    const file = await early.xlsx(7, never);
    expect(file.body.toString()).toBe('xlsx of report07');
    expect(file.extension).toBe('xlsx');
    expect((await early.xlsx(7, never)).body.toString()).toBe('xlsx of report07');
    expect(files.renders).toEqual(['xlsx:report07']);
  });

  it('a small report is rendered at the download, from the stored JSON', async () => {
    const files = fakeFiles();
    const early = new EarlyXlsx(files, { minBytes: 1000 });
    early.retrieved(8, json('report08'));
    expect(files.renders).toEqual([]);
    expect((await early.xlsx(8, async () => json('report08'))).body.toString()).toBe('xlsx of report08');
    expect(files.renders).toEqual(['xlsx:report08']);
  });

  it('keeps at most max files, each for ttlMs; forgets a deleted report', async () => {
    let now = 0;
    const files = fakeFiles();
    const early = new EarlyXlsx(files, { minBytes: 1, max: 2, ttlMs: 1000, now: () => now });
    for (const id of [1, 2, 3]) early.retrieved(id, json(`report0${id}`));
    await early.xlsx(3, never);
    await early.xlsx(2, never);
    await early.xlsx(1, async () => json('report01')); // the oldest went
    expect(files.renders).toEqual(['xlsx:report01', 'xlsx:report02', 'xlsx:report03', 'xlsx:report01']);
    early.forget(3);
    await early.xlsx(3, async () => json('report03'));
    now = 2000;
    await early.xlsx(2, async () => json('report02')); // expired
    expect(files.renders.slice(4)).toEqual(['xlsx:report03', 'xlsx:report02']);
  });

  it('a failed early render is rendered again at the download (its error only if that fails too)', async () => {
    const files = fakeFiles();
    const early = new EarlyXlsx(files, { minBytes: 1 });
    files.fail = true;
    early.retrieved(9, json('report09'));
    expect((await early.xlsx(9, async () => json('report09'))).body.toString()).toBe('xlsx of report09');
    expect(files.renders).toEqual(['xlsx:report09', 'xlsx:report09']);
    files.fail = true;
    await expect(early.xlsx(10, async () => json('report10'))).rejects.toThrow('render failed');
  });
});
