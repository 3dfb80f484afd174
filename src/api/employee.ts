/**
 * Employees (spec: Employee resource; Employees, base path /employee): list, read, create, update,
 * delete, batch_convert, and the side effects of tracker bindings on tracker labels.
 * Decisions for what the spec leaves open are in docs/employees.md.
 */
import { z } from 'zod';
import type { GeocodeOptions } from '../geocoder/types.ts';
import type { DataStore } from '../store/contract.ts';
import type { EmployeeData, EmployeeRow } from '../store/employees.ts';
import type { FieldValues } from '../store/fields.ts';
import type { UserRow } from '../store/users.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { issuesToErrors } from './params.ts';
import { coordinateCells, numberCell, parseBatch, type RowError } from '../imports/batch.ts';
import { geocoderParam, id } from './schemas.ts';

// ---- the Employee object (spec: Resources, Employee; Limits) ----

const isDate = (s: string) => {
  const d = new Date(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
};
const location = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180), address: z.string().max(1024).default('') });
const fieldsMap = z.record(z.string(), z.object({ type: z.string(), value: z.unknown() }));

const shape = z.object({
  tracker_id: id.nullable(),
  first_name: z.string().trim().min(1, 'must not be empty').max(100),
  middle_name: z.string().max(100),
  last_name: z.string().max(100),
  email: z.string().max(100).refine((s) => s === '' || z.regexes.email.test(s), 'a valid e-mail address, or empty'),
  phone: z.string().max(32).regex(/^\d*$/, 'digits only, without plus sign'),
  driver_license_number: z.string().max(32),
  driver_license_cats: z.string().max(32),
  driver_license_valid_till: z.string().refine(isDate, 'a date yyyy-MM-dd').nullable(),
  driver_license_issue_date: z.string().refine(isDate, 'a date yyyy-MM-dd').nullable(),
  ssn: z.string().max(32),
  hardware_key: z.string().max(64).nullable(),
  department_id: id.nullable(),
  location: location.nullable(),
  personnel_number: z.string().max(15),
  tags: z.array(id).max(100),
  fuel_consumption: z.number().min(0).max(1_000_000),
  fuel_cost: z.number().min(0).max(1_000_000),
  fields: fieldsMap,
});
/** create: first_name required, the rest defaults; icon_id, avatar_file_name, id and unknown members are dropped. */
const createShape = shape.partial().extend({ first_name: shape.shape.first_name });
/** update: members present replace the stored ones (null included); absent members stay as they are. */
const updateShape = shape.partial().extend({ id });
type EmployeeInput = z.infer<typeof createShape> | z.infer<typeof updateShape>;

const DEFAULTS: EmployeeData = {
  tracker_id: null, first_name: '', middle_name: '', last_name: '', email: '', phone: '', driver_license_number: '', driver_license_cats: '',
  driver_license_valid_till: null, hardware_key: null, department_id: null, lat: null, lng: null, address: '', personnel_number: '', fuel_consumption: 0, fuel_cost: 0,
  driver_license_issue_date: null, ssn: '',
};

/** The stored values `base` with the members present in `input`. */
function merge(base: EmployeeData, input: EmployeeInput): EmployeeData {
  const out = { ...base };
  for (const k of Object.keys(DEFAULTS) as Array<keyof EmployeeData>) {
    const v = (input as Record<string, unknown>)[k];
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  if (input.location !== undefined) Object.assign(out, { lat: input.location?.lat ?? null, lng: input.location?.lng ?? null, address: input.location?.address ?? '' });
  return out;
}

export const fullName = (e: { first_name: string; middle_name: string; last_name: string }) => [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' ');

export function employeeView(e: Omit<EmployeeRow, 'id' | 'user_id'> & { id: number | null }, tags: number[], fields: FieldValues): Record<string, unknown> {
  return {
    id: e.id,
    tracker_id: e.tracker_id,
    first_name: e.first_name,
    middle_name: e.middle_name,
    last_name: e.last_name,
    email: e.email,
    phone: e.phone,
    driver_license_number: e.driver_license_number,
    driver_license_cats: e.driver_license_cats,
    driver_license_issue_date: e.driver_license_issue_date,
    driver_license_valid_till: e.driver_license_valid_till,
    hardware_key: e.hardware_key,
    icon_id: e.icon_id,
    avatar_file_name: e.avatar_file_name,
    department_id: e.department_id,
    location: e.lat === null || e.lng === null ? null : { lat: e.lat, lng: e.lng, address: e.address },
    personnel_number: e.personnel_number,
    ssn: e.ssn,
    tags,
    fuel_consumption: e.fuel_consumption,
    fuel_cost: e.fuel_cost,
    fields,
  };
}

export async function employeeViews(services: Services, rows: EmployeeRow[]) {
  const ids = rows.map((r) => r.id);
  const tags = await services.store.data.tags.entityTags('employee', ids);
  const fields = await services.store.data.fields.load('employee', ids);
  return rows.map((r) => employeeView(r, tags.get(r.id)!, fields.get(r.id)!));
}

// ---- addresses (issue 4: every located entity gets an address) ----

async function reverseAddress(services: Services, lat: number, lng: number, opts: GeocodeOptions = {}): Promise<string> {
  try {
    return (await services.geocoder.reverse(lat, lng, opts))?.address ?? '';
  } catch {
    return ''; // a failing provider leaves the address empty rather than failing the call
  }
}

async function fillAddress(services: Services, e: EmployeeData, opts: GeocodeOptions = {}): Promise<void> {
  if (e.lat !== null && e.lng !== null && !e.address) e.address = await reverseAddress(services, e.lat, e.lng, opts);
}

// ---- checks and writes, in one transaction (`tx`) ----

const notFound = (what: string) => new DomainError(201, {}, `Not found in the database: ${what}`);

/**
 * Checks what refers to other entities (custom fields 7; department, tags, tracker 201; tracker
 * of another employee 247 unless force_reassign) and writes the employee with its side effects.
 */
async function save(tx: DataStore, owner: UserRow, input: EmployeeInput, data: EmployeeData, before: EmployeeRow | undefined, force: boolean): Promise<number> {
  const { employees, departments, tags, trackers, fields } = tx;
  if (input.fields !== undefined || !before) {
    const errors = await fields.validate(owner.id, 'employee', input.fields, { requireAll: true, parameter: 'employee.fields' });
    if (errors.length) throw invalidParams(errors);
  }
  if (data.department_id !== null && data.department_id !== before?.department_id && !(await departments.get(owner.id, data.department_id))) throw notFound(`department ${data.department_id}`);
  const missingTags = await tags.missing(owner.id, input.tags ?? []);
  if (missingTags.length) throw notFound(`tags ${missingTags.join(', ')}`);
  const trackerId = data.tracker_id;
  const trackerChanged = trackerId !== (before?.tracker_id ?? null);
  if (trackerId !== null && trackerChanged) {
    // The owner's live tracker (spec, Conventions §10); blocked trackers may still be bound.
    if (!(await trackers.get(owner.id, trackerId))) throw notFound(`tracker ${trackerId}`);
    const holder = await employees.byTracker(trackerId);
    if (holder) {
      if (!force) throw new DomainError(247, { employee_id: holder.id }, `Entity already exists: tracker ${trackerId} is bound to employee ${holder.id}; pass force_reassign to move it`);
      await employees.setTracker(holder.id, null);
    }
  }
  let employeeId: number;
  if (before) {
    await employees.update(owner.id, before.id, data);
    employeeId = before.id;
  } else employeeId = await employees.create(owner.id, data);
  if (input.tags !== undefined) await tags.setEntityTags('employee', employeeId, input.tags);
  if (input.fields !== undefined) await fields.save('employee', employeeId, input.fields as FieldValues);
  // Side effects (spec, Employees): the former tracker is marked, the bound one carries the name.
  if (trackerChanged && before?.tracker_id) await employees.markTrackerFormer(before.tracker_id);
  if (trackerId !== null && (trackerChanged || fullName(data) !== fullName(before!))) await employees.labelTracker(trackerId, fullName(data));
  return employeeId;
}

const list = defineCall({
  path: 'employee/list',
  summary: "The user's employees, ordered by id.",
  params: z.object({}),
  async handler({ services, owner }) {
    return { list: await employeeViews(services, await services.store.data.employees.list(owner.id)) };
  },
});

const read = defineCall({
  path: 'employee/read',
  summary: 'One employee.',
  params: z.object({ employee_id: id }),
  async handler({ services, owner, params }) {
    const e = await services.store.data.employees.get(owner.id, params.employee_id);
    if (!e) throw notFound(`employee ${params.employee_id}`);
    return { value: (await employeeViews(services, [e]))[0] };
  },
});

const create = defineCall({
  path: 'employee/create',
  summary: 'Create an employee; answers its id. With tracker_id the tracker is renamed to the full name; 247 if another employee has it, unless force_reassign.',
  right: 'employee_update',
  params: z.object({ employee: createShape, force_reassign: z.boolean().default(false) }),
  async handler({ services, owner, user, params }) {
    const data = merge(DEFAULTS, params.employee);
    await fillAddress(services, data, { lang: user.locale });
    return { id: await services.store.data.transaction((tx) => save(tx, owner, params.employee, data, undefined, params.force_reassign)) };
  },
});

const update = defineCall({
  path: 'employee/update',
  summary: 'Change an employee: members present replace the stored ones. A changed tracker: the former gets the "Deleted " prefix, the new one the full name.',
  right: 'employee_update',
  params: z.object({ employee: updateShape, force_reassign: z.boolean().default(false) }),
  async handler({ services, owner, user, params }) {
    const stored = await services.store.data.employees.get(owner.id, params.employee.id);
    if (!stored) throw notFound(`employee ${params.employee.id}`);
    const data = merge(stored, params.employee);
    await fillAddress(services, data, { lang: user.locale });
    await services.store.data.transaction(async (tx) => {
      // Merged again over the row as it is now: a concurrent change during geocoding is not undone.
      const before = await tx.employees.get(owner.id, params.employee.id);
      if (!before) throw notFound(`employee ${params.employee.id}`);
      const fresh = merge(before, params.employee);
      if (fresh.lat === data.lat && fresh.lng === data.lng && !fresh.address) fresh.address = data.address;
      await save(tx, owner, params.employee, fresh, before, params.force_reassign);
    });
  },
});

const remove = defineCall({
  path: 'employee/delete',
  summary: 'Delete an employee; its tracker label gets the "Deleted " prefix.',
  right: 'employee_update',
  params: z.object({ employee_id: id }),
  async handler({ services, owner, params }) {
    await services.store.data.transaction(async (tx) => {
      const { employees, tags, fields } = tx;
      const e = await employees.get(owner.id, params.employee_id);
      if (!e) throw notFound(`employee ${params.employee_id}`);
      await employees.delete(owner.id, e.id);
      await tags.clearEntityTags('employee', e.id);
      await fields.clear('employee', e.id);
      if (e.tracker_id !== null) await employees.markTrackerFormer(e.tracker_id);
    });
  },
});

// ---- employee/batch_convert: checks and converts tab-delimited rows, creates nothing ----

const BATCH_FIELDS = [
  'first_name', 'middle_name', 'last_name', 'email', 'phone', 'driver_license_number', 'driver_license_cats', 'driver_license_valid_till',
  'hardware_key', 'personnel_number', 'fuel_consumption', 'fuel_cost', 'address', 'lat', 'lng',
] as const;
type BatchField = (typeof BATCH_FIELDS)[number];
const DEFAULT_BATCH_FIELDS: BatchField[] = ['first_name', 'middle_name', 'last_name', 'email', 'phone'];
const EMPTY_ROW = Object.fromEntries(BATCH_FIELDS.map((f) => [f, ''])) as Record<BatchField, string>;

/** One row's cells -> the employee members (types converted, phone normalized), and cell errors. */
function rowInput(cells: Record<BatchField, string>, errors: RowError[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of ['first_name', 'middle_name', 'last_name', 'email', 'driver_license_number', 'driver_license_cats', 'personnel_number'] as const) input[f] = cells[f];
  // "+49 (170) 123-45" -> "4917012345": spreadsheets carry phones in every notation.
  input.phone = cells.phone.replace(/[\s\-().]/g, '').replace(/^\+/, '');
  input.hardware_key = cells.hardware_key || null;
  input.driver_license_valid_till = cells.driver_license_valid_till || null;
  for (const f of ['fuel_consumption', 'fuel_cost'] as const) if (cells[f]) input[f] = numberCell(cells[f]);
  const point = coordinateCells(cells, errors);
  if (point) input.location = { ...point, address: cells.address };
  return input;
}

async function convertRow(services: Services, cells: Record<BatchField, string>, geo: GeocodeOptions): Promise<Record<string, unknown>> {
  const errors: RowError[] = [];
  const input = rowInput(cells, errors);
  if (!input.location && cells.address && !errors.length) {
    // An address without coordinates is geocoded (issue 4, Imports); the location stays optional.
    let found: Array<{ lat: number; lng: number }> = [];
    try {
      found = await services.geocoder.search(cells.address, geo);
    } catch {
      /* provider down: reported as not found */
    }
    if (found.length) input.location = { lat: found[0].lat, lng: found[0].lng, address: cells.address };
    else errors.push({ parameter: 'address', error: 'the geocoder found no such address' });
  }
  const parsed = createShape.safeParse(input);
  if (!parsed.success) for (const e of issuesToErrors(parsed.error.issues, input)) errors.push({ parameter: e.parameter.replace(/^location\./, ''), error: e.error });
  // spec, Employees: employees created this way must have a phone or an e-mail
  if (!cells.phone && !cells.email) errors.push({ parameter: 'phone', error: 'an employee needs a phone or an e-mail' });
  // Rows with errors show the values as read, so a client can point at the cells at fault.
  const data = merge(DEFAULTS, (parsed.success ? parsed.data : input) as EmployeeInput);
  if (parsed.success) await fillAddress(services, data, geo);
  const view = employeeView({ ...data, id: null, icon_id: null, avatar_file_name: null }, [], {});
  return errors.length ? { ...view, errors } : view;
}

const batchConvert = defineCall({
  path: 'employee/batch_convert',
  summary: 'Check and convert tab-delimited employees (one a line, cells in `fields` order); answers them with per-row errors. Creates nothing.',
  right: 'employee_update',
  params: z.object({
    batch: z.string().optional(),
    file_id: z.string().min(1).max(64).optional(),
    fields: z
      .array(z.enum(BATCH_FIELDS))
      .min(1)
      .refine((f) => new Set(f).size === f.length, 'a field may be named once')
      .default(DEFAULT_BATCH_FIELDS),
    geocoder: geocoderParam,
    // Employees' locations have no radius: checked for the spec's sake, not used (docs/employees.md).
    default_radius: z.number().int().min(1).max(100_000).default(100),
  }),
  async handler({ services, user, params }) {
    // No spreadsheet parse call exists (spec: "not shown"), so no file id can be found.
    if (params.file_id !== undefined) throw notFound(`file ${params.file_id} (no parsed spreadsheet with this id)`);
    if (params.batch === undefined) throw invalidParams([{ parameter: 'batch', error: 'required (or file_id)' }]);
    // The shared parser (src/imports/batch.ts): 234 for binary data or rows longer than fields.
    const { rows, limitExceeded } = parseBatch(params.batch, params.fields);
    const geo: GeocodeOptions = { type: params.geocoder, lang: user.locale };
    const list: Array<Record<string, unknown>> = [];
    for (const row of rows) list.push(await convertRow(services, { ...EMPTY_ROW, ...row.cells }, geo));
    return { list, limit_exceeded: limitExceeded };
  },
});

export const employeeCalls = [list, read, create, update, remove, batchConvert];
