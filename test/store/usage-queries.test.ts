/**
 * The store reads behind tag/search, file/stats/read and form/template/stats/read:
 * TagStore.withAllTags, FileStore.uploadedStats and FormTemplateStore.usage, each scoped to its user.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import type { TaskDraft } from '../../src/store/tasks.ts';
import { openSql } from '../helpers/sql.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-usage-'));
let store: Store;
let ann: number;
let bob: number;
beforeAll(() => {
  store = openStore(join(dir, 'db.sqlite'));
  const sql = openSql(join(dir, 'db.sqlite'));
  const user = (login: string) => Number(sql.prepare("INSERT INTO users (dealer_id, tariff_id, login, login_key, password_hash, creation_date) VALUES (1, 1, ?, ?, 'x', 0)").run(login, login).lastInsertRowid);
  ann = user('ann@example.com');
  bob = user('bob@example.com');
  sql.close();
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('TagStore.withAllTags', () => {
  it("answers the ids of the user's entities of a type carrying every tag, ascending", () => {
    const red = store.tags.create(ann, 'red', 'FF0000');
    const blue = store.tags.create(ann, 'blue', '0000FF');
    const green = store.tags.create(bob, 'green', '00FF00');
    store.transaction(() => {
      store.tags.setEntityTags('place', 12, [red, blue]);
      store.tags.setEntityTags('place', 11, [red]);
      store.tags.setEntityTags('place', 10, [blue, red]);
      store.tags.setEntityTags('zone', 12, [red, blue]);
      store.tags.setEntityTags('place', 20, [green]);
    });
    expect(store.tags.withAllTags(ann, 'place', [red, blue])).toEqual([10, 12]);
    expect(store.tags.withAllTags(ann, 'place', [red, red])).toEqual([10, 11, 12]);
    expect(store.tags.withAllTags(ann, 'zone', [blue])).toEqual([12]);
    expect(store.tags.withAllTags(ann, 'employee', [red])).toEqual([]);
    expect(store.tags.withAllTags(ann, 'place', [])).toEqual([]);
    // Another user's tags find nothing, with or without the user's own.
    expect(store.tags.withAllTags(ann, 'place', [green])).toEqual([]);
    expect(store.tags.withAllTags(ann, 'place', [red, green])).toEqual([]);
    expect(store.tags.withAllTags(bob, 'place', [red])).toEqual([]);
  });
});

describe('FileStore.uploadedStats', () => {
  it("counts the user's uploaded files and their bytes, not announced ones", () => {
    const file = (userId: number, size: number, upload: boolean) => {
      const id = store.files.insert({ userId, type: 'file', name: 'a.txt', maxSize: size, mimeType: 'text/plain', created: 0, expires: 1e13, token: 't' });
      if (upload) {
        store.files.startUpload(id);
        store.files.finishUpload(id, { size, storageKey: `k${id}`, mimeType: 'text/plain', metadata: null, preview: false, uploaded: 1 });
      }
    };
    expect(store.files.uploadedStats(ann)).toEqual({ count: 0, bytes: 0 });
    file(ann, 100, true);
    file(ann, 250, true);
    file(ann, 9999, false);
    file(bob, 7, true);
    expect(store.files.uploadedStats(ann)).toEqual({ count: 2, bytes: 350 });
    expect(store.files.uploadedStats(bob)).toEqual({ count: 1, bytes: 7 });
  });
});

describe('FormTemplateStore.usage', () => {
  it('counts tasks with a form of the template by status, and schedules naming it', () => {
    const tpl = store.formTemplates.create(ann, { label: 'T', description: '', fields: '[]', submit_in_zone: false }, 0);
    const other = store.formTemplates.create(ann, { label: 'O', description: '', fields: '[]', submit_in_zone: false }, 0);
    const draft: TaskDraft = { label: 'x', description: '', lat: 1, lng: 1, address: '', radius: 100, from_time: 0, to_time: 1, external_id: null, max_delay: 0, min_stay_duration: 0, form_template_id: null };
    const task = (status: 'unassigned' | 'done', template: number | null) => {
      const id = store.tasks.create(ann, { type: 'task', draft, trackerId: null, status, origin: 'manual', now: 0 });
      if (template !== null) store.forms.create(ann, store.formTemplates.get(ann, template)!, id, null, 0);
    };
    task('unassigned', tpl);
    task('unassigned', tpl);
    task('done', tpl);
    task('done', other);
    task('done', null);
    // A check-in form (no task) of the template is not a task's.
    store.forms.create(ann, store.formTemplates.get(ann, tpl)!, null, null, 0);
    const usage = store.formTemplates.usage(ann, tpl);
    expect(Object.fromEntries(usage.tasks)).toEqual({ unassigned: 2, done: 1 });
    expect(usage.scheduled).toBe(0);
    expect(Object.fromEntries(store.formTemplates.usage(bob, tpl).tasks)).toEqual({});
  });
});
