/**
 * The PDF file of a report (issue 12, "Queue and files"; docs/reports.md, "Files"), read back with
 * poppler as a person's viewer would: pages and their orientation, the title page and contents
 * (absent when headless), Cyrillic, Greek and Latin-extended text, the embedded fonts, column titles
 * repeated on every page of a long table, page numbers, and the track drawn above its table (pixels
 * of the rendered page). Also the render pool: the same files, built off the event loop.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportBody } from '../../src/reports/model.ts';
import { reportToPdf } from '../../src/reports/render/index.ts';
import { omittedNote, PDF_MAX_ROWS } from '../../src/reports/render/pdf.ts';
import { RenderPool } from '../../src/reports/render/pool.ts';
import { fixtureReport } from './fixture.ts';

const hasPoppler = (() => {
  try {
    execFileSync('pdfinfo', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPoppler) console.warn('render-pdf: poppler-utils (pdfinfo, pdftotext, pdftoppm) not installed: the PDF checks are skipped; apt-get install -y poppler-utils');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-pdf-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function save(pdf: Buffer): string {
  const file = join(dir, `r${++n}.pdf`);
  writeFileSync(file, pdf);
  return file;
}
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' });
const pages = (file: string) => Number(/^Pages:\s+(\d+)/m.exec(run('pdfinfo', [file]))![1]);
/** Width x height of a page in points. */
const pageSize = (file: string, page: number) => {
  const m = /Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)/.exec(run('pdfinfo', ['-f', String(page), '-l', String(page), file]))!;
  return [Math.round(Number(m[1])), Math.round(Number(m[2]))];
};
const text = (file: string, page?: number) => run('pdftotext', [...(page ? ['-f', String(page), '-l', String(page)] : []), '-layout', file, '-']);

describe.skipIf(!hasPoppler)('pdf file', () => {
  it('has a title page, a table of contents, a chapter per sheet and page numbers', async () => {
    const file = save(await reportToPdf(fixtureReport(), { headless: false }));
    expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
    expect(pages(file)).toBe(4);
    expect(run('pdfinfo', [file])).toMatch(/^Title:\s+Поездки — Trips$/m);
    const title = text(file, 1);
    expect(title).toContain('Поездки — Trips');
    expect(title).toContain('2026-03-02 00:00:00 — 2026-03-02 23:59:59');
    expect(title).toContain('Created 2026-03-03 10:00:00 (Europe/Vilnius)');
    const toc = text(file, 2);
    expect(toc).toContain('Contents');
    expect(toc).toMatch(/Грузовик 7 \/ Van: \[north\]\s+3/);
    expect(toc).toMatch(/Грузовик 7 \/ Van: \[north\]\s+4/);
    for (let p = 1; p <= 4; p++) expect(text(file, p)).toMatch(new RegExp(`\\b${p}\\s*/\\s*4\\s*$`));
  });

  it('renders Cyrillic, Greek and Latin-extended text with the embedded fonts, totals and text sections', async () => {
    const file = save(await reportToPdf(fixtureReport(), { headless: false }));
    const chapter = text(file, 3);
    for (const s of ['Поездки', 'Начало', 'Σημείωση', 'Καλημέρα, οδηγός', 'Zażółć gęślą jaźń', 'Гедимино пр. 1, Вильнюс', '12.35 km', '1:02:03', '45.5%', 'Summary', 'Иван Петров']) expect(chapter).toContain(s);
    expect(chapter).toMatch(/Total\s+25\.69 km\s+2:04:06\s+7/);
    expect(text(file, 4)).toContain('Ελληνικά και кириллица');
    // Only the embedded Roboto faces: no font left to the viewer's substitution.
    const fonts = run('pdffonts', [file]).split('\n').slice(2).filter(Boolean);
    expect(fonts.length).toBeGreaterThan(0);
    for (const f of fonts) expect(f).toMatch(/^\w{6}\+Roboto-\w+\s+(CID )?TrueType.*\byes\s+yes\s+yes\b/);
  });

  it('lays a chapter with many columns on landscape pages, others portrait', async () => {
    const file = save(await reportToPdf(fixtureReport(), { headless: false }));
    expect(pageSize(file, 1)).toEqual([595, 842]);
    expect(pageSize(file, 3)).toEqual([842, 595]);
    expect(pageSize(file, 4)).toEqual([595, 842]);
  });

  it('leaves out the title page and contents when headless', async () => {
    const file = save(await reportToPdf(fixtureReport(), { headless: true }));
    expect(pages(file)).toBe(2);
    expect(pageSize(file, 1)).toEqual([842, 595]);
    const all = text(file);
    expect(all).not.toContain('Contents');
    expect(text(file, 1)).toContain('Грузовик 7 / Van: [north]');
    expect(text(file, 1)).toMatch(/\b1\s*\/\s*2\s*$/);
  });

  it('repeats the column titles on every page of a long table', async () => {
    const r = fixtureReport();
    r.sheets = [
      {
        header: 'Long',
        entity_ids: [1],
        sections: [
          {
            type: 'table',
            header: 'Stops',
            columns: [
              { field: 'n', title: 'Номер', weight: 1 },
              { field: 't', title: 'Место', weight: 3 },
            ],
            rows: Array.from({ length: 150 }, (_, i) => ({ type: 'data' as const, data: { n: { v: String(i + 1), raw: i + 1, type: 'number' as const }, t: { v: `Stop ${i + 1}`, raw: null, type: 'text' as const } } })),
          },
        ],
      },
    ];
    const file = save(await reportToPdf(r, { headless: true }));
    const count = pages(file);
    expect(count).toBeGreaterThanOrEqual(2);
    for (let p = 1; p <= count; p++) expect(text(file, p)).toMatch(/Номер\s+Место/);
    expect(text(file, count)).toContain('Stop 150');
  });

  it('stops a report longer than PDF_MAX_ROWS at the limit over all its tables, keeps the totals and says what is left out', async () => {
    const row = (i: number) => ({ type: 'data' as const, data: { n: { v: `Row ${i}`, raw: null, type: 'text' as const } } });
    const table = (header: string, from: number, count: number) => ({
      type: 'table' as const,
      header,
      columns: [{ field: 'n', title: 'No.', weight: 1 }],
      rows: [...Array.from({ length: count }, (_, i) => row(from + i)), { type: 'total' as const, data: { n: { v: `Total of ${header}`, raw: null, type: 'text' as const } } }],
    });
    const r = fixtureReport();
    // The first table fills all but 10 rows of the limit, the second has 25: 15 are left out.
    r.sheets = [
      { header: 'First', entity_ids: [1], sections: [table('A', 1, PDF_MAX_ROWS - 10)] },
      { header: 'Second', entity_ids: [2], sections: [table('B', 100_001, 25)] },
    ];
    const file = save(await reportToPdf(r, { headless: false }));
    const all = text(file).replace(/\s+/g, ' ');
    expect(text(file, 1).replace(/\s+/g, ' ')).toContain(omittedNote(15));
    expect(all).toContain(`Row ${PDF_MAX_ROWS - 10}`);
    expect(all).toContain('Row 100010');
    expect(all).not.toContain('Row 100011');
    expect(all).toContain('Total of A');
    expect(all).toContain('Total of B');
    expect(all.split(omittedNote(15)).length).toBe(3); // on the title page and under the second table
    expect(omittedNote(15)).toBe(`15 more rows are not in this PDF: a PDF holds at most ${PDF_MAX_ROWS} rows of a report. Download the report as xlsx for all of them.`);
  });

  it('draws the track of a map_table as a path above its table', async () => {
    const file = save(await reportToPdf(fixtureReport(), { headless: true }));
    const prefix = join(dir, 'map');
    run('pdftoppm', ['-f', '1', '-l', '1', '-r', '50', '-png', '-singlefile', file, prefix]);
    const { data, info } = await sharp(`${prefix}.png`).raw().toBuffer({ resolveWithObject: true });
    // Pixels of the track's blue (#1F5FA8), and where they are: in the map box under the headings.
    let blue = 0;
    let minY = Infinity;
    let maxY = 0;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const i = (y * info.width + x) * info.channels;
        const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
        if (Math.abs(r - 0x1f) < 40 && Math.abs(g - 0x5f) < 40 && Math.abs(b - 0xa8) < 40 && b > r + 60) {
          blue++;
          minY = Math.min(minY, y);
          maxY = Math.max(maxY, y);
        }
      }
    }
    expect(blue).toBeGreaterThan(100);
    // The map is 220 pt tall (about 150 px at 50 dpi) and the track fills most of it.
    expect(maxY - minY).toBeGreaterThan(100);
    // The table starts below the map: its title row is after the map's bottom on the page's text.
    const t = text(file, 1);
    expect(t.indexOf('Поездки')).toBeLessThan(t.indexOf('Начало'));
  });

  it('draws no map for a track of fewer than two points and renders an empty report', async () => {
    const r = fixtureReport();
    const section = r.sheets[0].sections[0] as Extract<ReportBody['sheets'][0]['sections'][0], { type: 'map_table' }>;
    section.track = [[54.68, 25.27]];
    const file = save(await reportToPdf(r, { headless: true }));
    expect(pages(file)).toBe(2);
    const hollow = fixtureReport({
      sheets: [
        {
          header: 'Hollow',
          entity_ids: [],
          sections: [
            { type: 'table', header: 'No columns', columns: [], rows: [] },
            { type: 'table', header: 'No rows', columns: [{ field: 'a', title: 'A', weight: 1 }], rows: [] },
            { type: 'text', header: 'No lines', data: [] },
          ],
        },
      ],
    });
    const hollowFile = save(await reportToPdf(hollow, { headless: true }));
    expect(text(hollowFile)).toMatch(/Hollow\s+No columns\s+No rows\s+A\s+No lines/);
    const empty = save(await reportToPdf(fixtureReport({ sheets: [] }), { headless: false }));
    expect(pages(empty)).toBe(3);
    expect(text(empty)).toContain('Поездки — Trips');
    expect(text(empty, 3)).toContain('No data for the period');
  });
});

describe('render pool', () => {
  let pool: RenderPool;
  beforeAll(() => {
    pool = new RenderPool({ threads: 1 });
  });
  afterAll(() => pool.close());

  it('renders each format in a worker while the event loop keeps running', async () => {
    const big = fixtureReport();
    const section = big.sheets[0].sections[0] as Extract<ReportBody['sheets'][0]['sections'][0], { type: 'map_table' }>;
    section.rows = Array.from({ length: 20 }, () => section.rows).flat();
    let last = Date.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = Date.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 5);
    try {
      const [pdf, xlsx, xls, csv] = await Promise.all([
        pool.render('pdf', big, { headless: false }),
        pool.render('xlsx', big, { headless: false }),
        pool.render('xls', fixtureReport(), { headless: false }),
        pool.render('csv', fixtureReport(), { headless: false }),
      ]);
      expect([pdf.contentType, pdf.extension, pdf.body.subarray(0, 5).toString()]).toEqual(['application/pdf', 'pdf', '%PDF-']);
      expect([xlsx.extension, xlsx.body.subarray(0, 2).toString()]).toEqual(['xlsx', 'PK']);
      expect([xls.contentType, xls.extension]).toEqual(['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx']);
      expect([csv.contentType, csv.body.toString('utf8').slice(1, 20)]).toEqual(['text/csv; charset=utf-8', 'Грузовик 7 / Van: [']);
      if (hasPoppler) expect(pages(save(pdf.body))).toBeGreaterThan(4);
    } finally {
      clearInterval(timer);
    }
    // The renders ran on another thread: timers on this one kept firing.
    expect(worst).toBeLessThan(500);
  });

  it('refuses an unknown format before waking a thread', async () => {
    await expect(pool.render('docx' as never, fixtureReport(), { headless: false })).rejects.toThrow('unknown file format docx');
  });
});
