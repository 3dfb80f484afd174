/** Tags over real HTTP (issue 4: tag/list, create, update, delete). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

describe('tags', () => {
  it('create, list with filter, update, delete', async () => {
    const a = await s.call('tag/create', { hash: ann.hash, tag: { name: 'North region', color: 'ff0000' } });
    expect(a.body).toEqual({ success: true, id: expect.any(Number) });
    const b = await s.call('tag/create', { hash: ann.hash, tag: { name: 'South' } });
    expect((await s.call('tag/list', { hash: ann.hash })).body.list).toEqual([
      { id: a.body.id, avatar_file_name: null, name: 'North region', color: 'FF0000' },
      { id: b.body.id, avatar_file_name: null, name: 'South', color: '27A9E3' },
    ]);
    expect((await s.call('tag/list', { hash: ann.hash, filter: 'rth' })).body.list.map((t: any) => t.name)).toEqual(['North region']);
    expect((await s.call('tag/update', { hash: ann.hash, tag: { id: b.body.id, name: 'Süd', color: '00FF00' } })).body).toEqual({ success: true });
    expect((await s.call('tag/delete', { hash: ann.hash, tag_id: a.body.id })).body).toEqual({ success: true });
    expect((await s.call('tag/list', { hash: ann.hash })).body.list).toEqual([{ id: b.body.id, avatar_file_name: null, name: 'Süd', color: '00FF00' }]);
  });
  it('7 for a filter of 1-2 or over 60 characters, a bad colour, an empty name', async () => {
    for (const [call, p, param] of [
      ['tag/list', { filter: 'ab' }, 'filter'],
      ['tag/list', { filter: 'x'.repeat(61) }, 'filter'],
      ['tag/create', { tag: { name: 'x', color: 'red' } }, 'tag.color'],
      ['tag/create', { tag: { name: ' ' } }, 'tag.name'],
    ] as const) {
      const r = await s.call(call, { hash: ann.hash, ...p });
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors[0].parameter).toBe(param);
    }
  });
  it('247 for a duplicate name; other users\' tags are not found', async () => {
    const t = await s.call('tag/create', { hash: ann.hash, tag: { name: 'Dup' } });
    expect((await s.call('tag/create', { hash: ann.hash, tag: { name: 'dup' } })).body.status.code).toBe(247);
    expect((await s.call('tag/create', { hash: bob.hash, tag: { name: 'Dup' } })).body.success).toBe(true);
    expect((await s.call('tag/update', { hash: bob.hash, tag: { id: t.body.id, name: 'Mine' } })).body.status.code).toBe(201);
    expect((await s.call('tag/delete', { hash: bob.hash, tag_id: t.body.id })).body.status.code).toBe(201);
    expect(s.store.tags.get(ann.id, t.body.id)!.name).toBe('Dup');
  });
});
