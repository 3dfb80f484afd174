/** The error registry and docs/errors.md agree: every code documented once, with its HTTP status. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/api/errors.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const rows = [...doc.matchAll(/^\| (\d+) \| (\d{3}) \|/gm)].map((m) => [Number(m[1]), Number(m[2])] as const);

describe('docs/errors.md', () => {
  it('documents every code with the same HTTP status, each once', () => {
    const codes = rows.map(([c]) => c);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([c, e]) => [Number(c), e.status])));
  });
  it('includes every code of the specification\'s Errors table', () => {
    const spec = [4, 7, 11, 13, 15, 101, 102, 103, 104, 105, 201, 202, 203, 204, 208, 209, 211, 214, 217, 219, 221, 222, 223, 229, 230, 231, 233, 234, 236, 241, 242, 243, 247, 249, 252, 255, 263, 264, 265, 268];
    for (const c of spec) expect(ERRORS).toHaveProperty(String(c));
  });
});
