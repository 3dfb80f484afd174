import type { Employee } from '../api/types.ts';

/** An employee's name as the console shows it: first, middle and last name, the empty ones left out. */
export const fullName = (e: Employee) => [e.first_name, e.middle_name, e.last_name].filter(Boolean).join(' ');
