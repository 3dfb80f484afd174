/**
 * Screens by path (/ the live map, /history), with the browser's history: links and the back
 * button work, and a reload keeps the screen (the server answers a deep link with the console's page).
 */
import { useEffect, useState } from 'react';

export interface Route {
  path: string;
  params: URLSearchParams;
}

const current = (): Route => ({ path: location.pathname, params: new URLSearchParams(location.search) });
const listeners = new Set<() => void>();

export function navigate(to: string): void {
  history.pushState(null, '', to);
  for (const l of listeners) l();
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const on = () => setRoute(current());
    listeners.add(on);
    addEventListener('popstate', on);
    return () => {
      listeners.delete(on);
      removeEventListener('popstate', on);
    };
  }, []);
  return route;
}
