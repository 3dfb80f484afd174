/**
 * The task feed (docs/field-app.md, "The task feed"): the task watch kept in a list, cached for
 * offline starts; a watch refused on reconnecting is reopened, or signs the phone out when revoked.
 */
import { useEffect, useState } from 'react';
import { ApiError, call, type Device } from './api.ts';

export interface Field {
  id: string;
  label: string;
  description?: string;
  required?: boolean;
  type: string;
  /** Choices as the API answers them (`[{label}]`); a bare string is an older feed cached on the phone. */
  group?: Choice[];
  options?: Choice[];
  max_stars?: number;
  max_files?: number;
  max_file_size?: number;
  allowed_extensions?: string[] | null;
}
export type Choice = { label: string } | string;

/** The text of a choice of a checkbox group, dropdown or radio group. */
export function choiceLabel(c: Choice): string {
  return typeof c === 'string' ? c : c.label;
}

export interface Task {
  id: number;
  label: string;
  description?: string;
  status: string;
  location: { lat: number; lng: number; address: string; radius: number };
  from: string;
  to: string;
  arrival_date?: string | null;
  form?: { id: number; label: string; fields: Field[]; submitted: string | null; submit_in_zone: boolean } | null;
}

const KEY = 'fsm.app.tasks';
type Page = { list: Task[]; removed: number[]; cursor: number; reset: boolean };

export function useTasks(device: Device, onRevoked: () => void): { tasks: Task[]; live: boolean } {
  const [tasks, setTasks] = useState<Task[]>(() => {
    try {
      return JSON.parse(localStorage.getItem(KEY) ?? '[]');
    } catch {
      return [];
    }
  });
  const [live, setLive] = useState(false);
  useEffect(() => {
    let es: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const connect = () => {
      // EventSource cannot set headers: the token goes in the query; it resends the last id itself.
      const source = new EventSource(`/v2/fsm/app/task/watch?hash=${encodeURIComponent(device.token)}`);
      es = source;
      source.onopen = () => setLive(true);
      source.onerror = () => {
        setLive(false);
        // A refused reconnect (an answer that is not a stream, e.g. a token revoked while the phone
        // was offline) closes the EventSource for good: ask why, and open a new one unless revoked.
        if (source.readyState !== EventSource.CLOSED || stopped) return;
        call('app/read', {}, device.token).then(
          () => (retry = setTimeout(connect, 5_000)),
          (e) => (e instanceof ApiError && e.code === 4 ? onRevoked() : (retry = setTimeout(connect, 5_000))),
        );
      };
      source.addEventListener('tasks', (e) => {
        const page = JSON.parse((e as MessageEvent).data) as Page;
        setTasks((old) => {
          const byId = new Map((page.reset ? [] : old).map((t) => [t.id, t]));
          for (const id of page.removed) byId.delete(id);
          for (const t of page.list) byId.set(t.id, t);
          const next = [...byId.values()].sort((a, b) => a.from.localeCompare(b.from));
          localStorage.setItem(KEY, JSON.stringify(next));
          return next;
        });
      });
      source.addEventListener('revoked', () => {
        source.close();
        onRevoked();
      });
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      es?.close();
    };
  }, [device.token, onRevoked]);
  return { tasks, live };
}

export const clearTasks = () => localStorage.removeItem(KEY);
