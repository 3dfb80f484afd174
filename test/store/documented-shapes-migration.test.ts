/**
 * Migration 041 (issue 23) on a database of before: stored choices of checkbox groups, dropdowns
 * and radio groups become [{label}] in templates and forms, in field order, other fields untouched;
 * task schedules keep their to_time (no duration); zones get the box of their points.
 */
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/store/db.ts';

const ADDED: Array<[string, string]> = [
  ['form_templates', 'is_default'],
  ['task_schedules', 'duration'],
  ['task_schedules', 'min_arrival_duration'],
  ['report_schedules', 'run_days'],
  ['report_schedules', 'last_report_id'],
  ['zones', 'min_lat'],
  ['zones', 'max_lat'],
  ['zones', 'min_lng'],
  ['zones', 'max_lng'],
  ['employees', 'driver_license_issue_date'],
  ['employees', 'ssn'],
];

describe('migration 041', () => {
  it('rewrites old choices, leaves the rest, fills zone boxes', () => {
    const db = openDatabase(':memory:');
    try {
      // Back to the schema before 041, with rows written the old way.
      for (const [table, column] of ADDED) db.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
      db.prepare('DELETE FROM schema_migrations WHERE version = 41').run();
      db.pragma('foreign_keys = OFF');
      const old = [
        { id: 'note', label: 'Note', type: 'text', min_length: 0, max_length: 10 },
        { id: 'boxes', label: 'Boxes', type: 'checkbox_group', group: ['Clean', 'Dry', 'Sealed'], min_checked: 0, max_checked: 3 },
        { id: 'pick', label: 'Pick', type: 'dropdown', options: ['A', 'B'] },
        { id: 'radio', label: 'Radio', type: 'radio_group', options: ['Yes', 'No'] },
      ];
      db.prepare('INSERT INTO form_templates (id, user_id, label, fields, created, updated) VALUES (1, 1, ?, ?, 0, 0)').run('T', JSON.stringify(old));
      db.prepare('INSERT INTO form_templates (id, user_id, label, fields, created, updated) VALUES (2, 1, ?, ?, 0, 0)').run('Plain', JSON.stringify([old[0]]));
      db.prepare('INSERT INTO forms (id, user_id, template_id, template_version, label, fields, submit_in_zone, created) VALUES (1, 1, 1, 1, ?, ?, 0, 0)').run('T', JSON.stringify(old));
      db.prepare("INSERT INTO zones (id, user_id, type, label) VALUES (1, 1, 'polygon', 'P'), (2, 1, 'circle', 'C')").run();
      db.prepare('INSERT INTO zone_points (zone_id, ordinal, lat, lng) VALUES (1, 0, 1, 2), (1, 1, 3, 1), (1, 2, 2, 5)').run();
      migrate(db);
      const expected = [
        old[0],
        { ...old[1], group: [{ label: 'Clean' }, { label: 'Dry' }, { label: 'Sealed' }] },
        { ...old[2], options: [{ label: 'A' }, { label: 'B' }] },
        { ...old[3], options: [{ label: 'Yes' }, { label: 'No' }] },
      ];
      expect(JSON.parse(db.prepare('SELECT fields FROM form_templates WHERE id = 1').pluck().get() as string)).toEqual(expected);
      expect(JSON.parse(db.prepare('SELECT fields FROM forms WHERE id = 1').pluck().get() as string)).toEqual(expected);
      expect(JSON.parse(db.prepare('SELECT fields FROM form_templates WHERE id = 2').pluck().get() as string)).toEqual([old[0]]);
      expect(db.prepare('SELECT is_default FROM form_templates WHERE id = 1').pluck().get()).toBe(0);
      expect(db.prepare('SELECT min_lat, max_lat, min_lng, max_lng FROM zones ORDER BY id').all()).toEqual([
        { min_lat: 1, max_lat: 3, min_lng: 1, max_lng: 5 },
        { min_lat: null, max_lat: null, min_lng: null, max_lng: null },
      ]);
    } finally {
      db.close();
    }
  });
});
