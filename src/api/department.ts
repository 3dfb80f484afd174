/**
 * Departments (spec: Department resource; Departments, base path /department): groups of employees.
 * Decisions for what the spec leaves open are in docs/employees.md.
 */
import { z } from 'zod';
import type { DepartmentData, DepartmentRow } from '../store/departments.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';

const location = z.object({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
  address: z.string().max(1024).default(''),
  radius: z.number().int().min(1).max(1_000_000).nullable().default(null),
});
const label = z.string().trim().min(1, 'must not be empty').max(100);

const view = (d: DepartmentRow) => ({
  id: d.id,
  label: d.label,
  location: d.lat === null || d.lng === null ? null : { lat: d.lat, lng: d.lng, address: d.address, radius: d.radius },
});

/** A located department without an address gets one from the geocoder (as employees do). */
async function withAddress(services: Services, d: DepartmentData, lang: string): Promise<DepartmentData> {
  const l = d.location;
  if (!l || l.address) return d;
  let address = '';
  try {
    address = (await services.geocoder.reverse(l.lat, l.lng, { lang }))?.address ?? '';
  } catch {
    /* a failing provider leaves the address empty */
  }
  return { ...d, location: { ...l, address } };
}

const notFound = (deptId: number) => new DomainError(201, {}, `Not found in the database: department ${deptId}`);

const list = defineCall({
  path: 'department/list',
  summary: "The user's departments, ordered by id.",
  params: z.object({}),
  async handler({ services, owner }) {
    return { list: (await services.store.data.departments.list(owner.id)).map(view) };
  },
});

const create = defineCall({
  path: 'department/create',
  summary: 'Create a department; answers its id.',
  right: 'employee_update',
  params: z.object({ department: z.object({ label, location: location.nullable().default(null) }) }),
  async handler({ services, owner, user, params }) {
    const d = await withAddress(services, params.department, user.locale);
    return { id: await services.store.data.departments.create(owner.id, d) };
  },
});

const update = defineCall({
  path: 'department/update',
  summary: 'Change a department: members present replace the stored ones.',
  right: 'employee_update',
  params: z.object({ department: z.object({ id, label: label.optional(), location: location.nullable().optional() }) }),
  async handler({ services, owner, user, params }) {
    const { departments } = services.store.data;
    const p = params.department;
    const stored = await departments.get(owner.id, p.id);
    if (!stored) throw notFound(p.id);
    const current = view(stored);
    const d = await withAddress(services, { label: p.label ?? current.label, location: p.location === undefined ? current.location : p.location }, user.locale);
    if (!(await departments.update(owner.id, p.id, d))) throw notFound(p.id);
  },
});

const remove = defineCall({
  path: 'department/delete',
  summary: 'Delete a department; its employees stay, without a department.',
  right: 'employee_update',
  params: z.object({ department_id: id }),
  async handler({ services, owner, params }) {
    if (!(await services.store.data.departments.delete(owner.id, params.department_id))) throw notFound(params.department_id);
  },
});

export const departmentCalls = [list, create, update, remove];
