/** The upload worker's readers without a server: KMZ entries and the nesting scan (issue 10, items 7-8). */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.ts';
import { checkNesting, parseKml } from '../../src/imports/kml.ts';
import { kmlEntry } from '../../src/imports/kmz.ts';
import { runUploadTask } from '../../src/imports/upload-tasks.ts';
import { zip } from './uploads.ts';

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DomainError ? e.code : String(e);
  }
  return 'no error';
};

describe('kmlEntry', () => {
  const entry = (name: string, text: string, declaredSize = text.length) => ({ name, deflated: new Uint8Array(deflateRawSync(text)), declaredSize });
  it('takes doc.kml, else the first .kml by name; never the others', () => {
    const z = zip([entry('b.kml', '<kml>b</kml>'), entry('a.kml', '<kml>a</kml>'), entry('files/x.png', 'png')]);
    expect(new TextDecoder().decode(kmlEntry(z, 1000))).toBe('<kml>a</kml>');
    const withDoc = zip([entry('a.kml', '<kml>a</kml>'), entry('DOC.KML', '<kml>doc</kml>')]);
    expect(new TextDecoder().decode(kmlEntry(withDoc, 1000))).toBe('<kml>doc</kml>');
    expect(kmlEntry(zip([entry('x.png', 'png')]), 1000)).toBeUndefined();
  });
  it('234 past the bound whatever the header says; 234 for a cut or broken zip', () => {
    const text = `<kml>${' '.repeat(5000)}</kml>`;
    expect(codeOf(() => kmlEntry(zip([entry('doc.kml', text, 10)]), 1000))).toBe(234);
    expect(kmlEntry(zip([entry('doc.kml', text, 10)]), 10_000)!.length).toBe(text.length);
    const z = zip([entry('doc.kml', text)]);
    expect(codeOf(() => kmlEntry(z.subarray(0, z.length - 30), 10_000))).toBe(234);
    const garbage = zip([{ name: 'doc.kml', deflated: new Uint8Array([0xff, 0xff, 0xff, 0xff]), declaredSize: 4 }]);
    expect(codeOf(() => kmlEntry(garbage, 10_000))).toBe(234);
  });
});

describe('checkNesting', () => {
  it('counts elements only: comments, CDATA, declarations, self-closing tags and ">" in attribute values do not nest', () => {
    const ok = `<?xml version="1.0"?><!-- <a><a><a> --><kml a="x>y"><![CDATA[<a><a><a>]]><b/><c></c><d><e/></d></kml>`;
    expect(() => checkNesting(ok, 2)).not.toThrow();
    expect(codeOf(() => checkNesting('<a><b><c></c></b></a>', 2))).toBe(242);
    expect(() => checkNesting('<a><b></b><b></b><b></b></a>', 2)).not.toThrow();
  });
  it('deep MultiGeometry is refused before the parser recurses', () => {
    const deep = `<kml><Placemark>${'<MultiGeometry>'.repeat(100_000)}${'</MultiGeometry>'.repeat(100_000)}</Placemark></kml>`;
    expect(codeOf(() => parseKml(deep, 100))).toBe(242);
  });
});

describe('runUploadTask', () => {
  it('answers a DomainError as data (it crosses the thread boundary)', () => {
    const file = { filename: 'a.kml', mimetype: 'application/xml', data: new TextEncoder().encode('<html/>') };
    expect(runUploadTask({ kind: 'kml', file, defaultRadius: 100, preview: true })).toEqual({ ok: false, code: 242, extra: {}, description: 'Validation error: not valid KML: the root element is not <kml>' });
  });
  it('packs zone points in one Float64Array', () => {
    const text = '<kml><Placemark><name>P</name><Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,0</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>';
    const answer = runUploadTask({ kind: 'kml', file: { filename: 'a.kml', mimetype: '', data: new TextEncoder().encode(text) }, defaultRadius: 100, preview: false });
    expect(answer).toEqual({ ok: true, result: { packed: { zones: [{ type: 'polygon', label: 'P', radius: null, center: null, start: 0, count: 3 }], coords: new Float64Array([0, 0, 0, 1, 1, 1]), nodes: new Uint8Array(3) } } });
  });
});
