/**
 * The xlsx file of a report (issue 12, "Queue and files"; docs/reports.md, "Files"), opened back with
 * a reader as a person's spreadsheet application would: worksheet names, frozen header, numbers as
 * numbers in the units `v` shows, times as dates in the report's zone, durations, bold totals,
 * places linked to their coordinates. Also the CSV file and the `xls` answer.
 */
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Cell, ReportBody } from '../../src/reports/model.ts';
import { renderReport, reportToXlsx } from '../../src/reports/render/index.ts';
import { displayedNumber, sheetNumber } from '../../src/reports/render/numbers.ts';
import { worksheetNames } from '../../src/reports/render/xlsx.ts';
import { defuse } from '../../src/reports/render/csv.ts';
import { fixtureReport } from './fixture.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function open(report: ReportBody): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load((await reportToXlsx(report)) as never);
  return book;
}

describe('xlsx workbook', () => {
  it('has a worksheet per sheet with valid unique names and the first table header frozen', async () => {
    const book = await open(fixtureReport());
    expect(book.worksheets.map((w) => w.name)).toEqual(['Грузовик 7 Van north', 'Грузовик 7 Van north (2)']);
    const ws = book.worksheets[0];
    expect(ws.views[0]).toMatchObject({ state: 'frozen', xSplit: 0, ySplit: 2 });
    expect(ws.getCell('A1').value).toBe('Поездки');
    expect(ws.getRow(2).values).toEqual([undefined, 'Начало', 'Day', 'From', 'Length', 'Duration', 'Max speed', 'Fuel', 'Load', 'Stops', 'Σημείωση']);
    expect(ws.getRow(2).font?.bold).toBe(true);
    // Widths from weights and content: the place column is wider than the count column.
    expect(ws.getColumn(3).width).toBeGreaterThan(ws.getColumn(9).width!);
    expect(ws.getColumn(3).width).toBeGreaterThanOrEqual('Гедимино пр. 1, Вильнюс'.length);
  });

  it('writes every cell type as its spreadsheet type', async () => {
    const ws = (await open(fixtureReport())).worksheets[0];
    const c = (a: string) => ws.getCell(a);
    // 2026-03-02 08:15:30 in Vilnius: the wall time, as a date (no zone in a spreadsheet).
    expect(c('A3').type).toBe(ExcelJS.ValueType.Date);
    expect(c('A3').value).toEqual(new Date(Date.UTC(2026, 2, 2, 8, 15, 30)));
    expect(c('A3').numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(c('A4').value).toEqual(new Date(Date.UTC(2026, 2, 2, 9, 15, 30)));
    expect(c('B3').value).toEqual(new Date(Date.UTC(2026, 2, 2)));
    expect(c('B3').numFmt).toBe('yyyy-mm-dd');
    expect(c('C3').type).toBe(ExcelJS.ValueType.Hyperlink);
    expect(c('C3').value).toEqual({ text: 'Гедимино пр. 1, Вильнюс', hyperlink: 'geo:54.687000,25.280000' });
    expect([c('D3').value, c('D3').numFmt]).toEqual([12.35, '0.00" km"']);
    // A duration is a fraction of a day shown as [h]:mm:ss (the reader shows it as a time since 1899-12-30).
    expect(c('E3').numFmt).toBe('[h]:mm:ss');
    expect(c('E3').value).toEqual(new Date(Date.UTC(1899, 11, 30, 1, 2, 3)));
    expect([c('F3').value, c('F3').numFmt]).toEqual([61, '0" km/h"']);
    expect([c('G3').value, c('G3').numFmt]).toEqual([7.5, '0.0" l"']);
    expect([c('H3').value, c('H3').numFmt]).toEqual([0.455, '0.0%']);
    expect([c('I3').value, c('I3').type]).toEqual([3, ExcelJS.ValueType.Number]);
    expect(c('J3').value).toBe('Καλημέρα, οδηγός');
    expect(c('J4').value).toBe('Zażółć gęślą jaźń');
  });

  it('writes the total row bold and text sections as key/value lines', async () => {
    const ws = (await open(fixtureReport())).worksheets[0];
    expect(ws.getCell('A5').value).toBe('Total');
    expect(ws.getRow(5).font?.bold).toBe(true);
    expect(ws.getRow(3).font?.bold).toBeFalsy();
    expect([ws.getCell('D5').value, ws.getCell('I5').value]).toEqual([25.69, 7]);
    // Cells share style objects by look: the total row's bold and line never reach a data row's cells.
    expect([ws.getCell('D5').font?.bold, ws.getCell('D5').border?.top?.style, ws.getCell('D5').numFmt]).toEqual([true, 'thin', ws.getCell('D3').numFmt]);
    expect([ws.getCell('D3').font?.bold, ws.getCell('D3').border?.top, ws.getCell('D4').font?.bold]).toEqual([undefined, undefined, undefined]);
    expect(ws.getCell('A7').value).toBe('Summary');
    expect([ws.getCell('A8').value, ws.getCell('B8').value, ws.getCell('B8').numFmt]).toEqual(['Total distance', 25.69, '0.00" km"']);
    expect([ws.getCell('A9').value, ws.getCell('B9').value]).toEqual(['Водитель', 'Иван Петров']);
    const second = (await open(fixtureReport())).worksheets[1];
    expect(second.getCell('A3').value).toBe('Ελληνικά και кириллица');
  });

  it('reads the unit and precision from v, so the value equals what v shows', () => {
    const n = (v: string, raw: number, type: Cell['type'], locale = 'en', system: 'metric' | 'imperial' | 'us' = 'metric') => sheetNumber({ v, raw, type }, locale, system);
    expect(n('7.67 mi', 12_345, 'distance', 'en', 'imperial')).toEqual({ value: 7.67, format: '0.00" mi"' });
    expect(n('850 m', 850, 'distance')).toEqual({ value: 850, format: '0" m"' });
    expect(n('12,35 км', 12_345, 'distance', 'ru')).toEqual({ value: 12.35, format: '0.00" км"' });
    expect(n('1,234.6 km', 1_234_567, 'distance')).toEqual({ value: 1234.6, format: '#,##0.0" km"' });
    expect(n('1\u00a0234,6 km', 1_234_567, 'distance', 'fr')).toEqual({ value: 1234.6, format: '#,##0.0" km"' });
    expect(n('38 mph', 61.2, 'speed', 'en', 'us')).toEqual({ value: 38, format: '0" mph"' });
    expect(n('2.0 gal', 7.57, 'volume', 'en', 'us')).toEqual({ value: 2, format: '0.0" gal"' });
    expect(n('1.7 gal', 7.57, 'volume', 'en', 'imperial')).toEqual({ value: 1.7, format: '0.0" gal"' });
    expect(n('-3', -3, 'number')).toEqual({ value: -3, format: '0' });
    expect(n('50 %', 50, 'percent', 'ru')).toEqual({ value: 0.5, format: '0%' });
    expect(sheetNumber({ v: '—', raw: null, type: 'distance' }, 'en', 'metric')).toBeUndefined();
    expect(displayedNumber('no digits', 'en')).toBeUndefined();
  });

  it('writes sections without columns, rows or lines, and a report without sheets', async () => {
    const r = fixtureReport();
    r.sheets = [{ header: 'Hollow', entity_ids: [], sections: [{ type: 'table', header: 'No columns', columns: [], rows: [] }, { type: 'table', header: 'No rows', columns: [{ field: 'a', title: 'A', weight: 1 }], rows: [] }, { type: 'text', header: 'No lines', data: [] }] }];
    const ws = (await open(r)).worksheets[0];
    expect([1, 2, 3, 4, 5, 6, 7].map((i) => ws.getCell(`A${i}`).value)).toEqual(['No columns', null, null, 'No rows', 'A', null, 'No lines']);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 2 });
    const none = await open(fixtureReport({ sheets: [] }));
    expect([none.worksheets.length, none.worksheets[0].getCell('A1').value]).toEqual([1, 'Поездки — Trips']);
  });

  it('keeps cells without a raw value as their text', async () => {
    const r = fixtureReport();
    r.sheets = [{ header: 'S', entity_ids: [], sections: [{ type: 'table', header: 'T', columns: [{ field: 'a', title: 'A', weight: 1 }, { field: 'b', title: 'B', weight: 1 }], rows: [{ type: 'data', data: { a: { v: '—', raw: null, type: 'distance' }, b: { v: 'n/a', raw: null, type: 'datetime' } } }] }] }];
    const ws = (await open(r)).worksheets[0];
    expect([ws.getCell('A3').value, ws.getCell('B3').value]).toEqual(['—', 'n/a']);
  });

  it('keeps text XML cannot hold as text: markup characters, spaces at the ends; control characters are left out', async () => {
    const r = fixtureReport({ title: 'A <b>&"report"' });
    r.sheets = [{ header: 'S & <T>', entity_ids: [], sections: [{ type: 'table', header: '<h1>', columns: [{ field: 'a', title: 'A&B', weight: 1 }], rows: [{ type: 'data', data: { a: { v: '  x < y & "z" \u0001end ', raw: null, type: 'text' } } }] }] }];
    const book = await open(r);
    const ws = book.worksheets[0];
    expect([ws.name, ws.getCell('A1').value, ws.getCell('A2').value, ws.getCell('A3').value]).toEqual(['S & <T>', '<h1>', 'A&B', '  x < y & "z" end ']);
    expect(book.title).toBe('A <b>&"report"');
  });

  it('names worksheets within the rules: 31 characters, no []:*?/\\, unique ignoring case', () => {
    const long = 'A'.repeat(40);
    expect(worksheetNames([long, long, 'a/b*c?', 'A B C', '', 'History', "'quoted'", 'x'.repeat(29) + 'ab', 'X'.repeat(29) + 'AB'])).toEqual([
      'A'.repeat(31),
      `${'A'.repeat(27)} (2)`,
      'a b c',
      'A B C (2)',
      'Sheet 5',
      'Sheet 6',
      'quoted',
      'x'.repeat(29) + 'ab',
      `${'X'.repeat(27)} (2)`,
    ]);
  });

  it('answers xls with the xlsx file and csv as UTF-8 text with the displayed values', async () => {
    const xls = await renderReport('xls', fixtureReport(), { headless: false });
    expect([xls.contentType, xls.extension]).toEqual([XLSX, 'xlsx']);
    expect(xls.body.subarray(0, 2).toString()).toBe('PK');
    const csv = await renderReport('csv', fixtureReport({ sheets: [{ ...fixtureReport().sheets[0], header: '=cmd|x' }] }), { headless: false });
    expect([csv.contentType, csv.extension]).toEqual(['text/csv; charset=utf-8', 'csv']);
    expect([...csv.body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parse(csv.body, { bom: true, relax_column_count: true }) as string[][];
    expect(rows[0]).toEqual(["'=cmd|x"]);
    expect(rows[2]).toEqual(['Поездки']);
    expect(rows[3][0]).toBe('Начало');
    expect(rows[4]).toEqual(['2026-03-02 08:15:30', '2026-03-02', 'Гедимино пр. 1, Вильнюс', '12.35 km', '1:02:03', '61 km/h', '7.5 l', '45.5%', '3', 'Καλημέρα, οδηγός']);
    expect(rows[6]).toEqual(['Total', '', '', '25.69 km', '2:04:06', '', '', '', '7', '']);
    expect(rows.slice(8, 11)).toEqual([['Summary'], ['Total distance', '25.69 km'], ['Водитель', 'Иван Петров']]);
  });

  it('defuses CSV text a spreadsheet would run as a formula, and only that', () => {
    expect(['=SUM(A1)', '+1', '@cmd', '\tx', '-cmd', '-1+2', '-5 km', '-3', '-0.5', 'a=b', '', 'Total'].map(defuse)).toEqual([
      "'=SUM(A1)",
      "'+1",
      "'@cmd",
      "'\tx",
      "'-cmd",
      "'-1+2",
      '-5 km',
      '-3',
      '-0.5',
      'a=b',
      '',
      'Total',
    ]);
  });
});
