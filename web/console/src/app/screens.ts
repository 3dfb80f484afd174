/**
 * The console's screens: one entry per screen, in navigation order. A new screen is a folder under
 * screens/ and one line here (docs/console.md#adding-a-screen).
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { MessageKey } from '../i18n/i18n.ts';

export interface ScreenDef {
  path: string;
  title: MessageKey;
  component: ComponentType | LazyExoticComponent<ComponentType>;
}

// Every screen loads when first opened: the sign-in page needs neither MapLibre nor the screens.
const monitor = () => import('../screens/monitor/MonitorScreen.tsx').then((m) => ({ default: m.MonitorScreen }));

/** Fetched while the operator signs in, so the live map opens at once. */
export function preloadFirstScreen(): void {
  void monitor();
}

export const SCREENS: ScreenDef[] = [
  { path: '/', title: 'nav.monitor', component: lazy(monitor) },
  { path: '/history', title: 'nav.history', component: lazy(() => import('../screens/history/HistoryScreen.tsx').then((m) => ({ default: m.HistoryScreen }))) },
  { path: '/dispatch', title: 'nav.dispatch', component: lazy(() => import('../screens/dispatch/DispatchScreen.tsx').then((m) => ({ default: m.DispatchScreen }))) },
  { path: '/zones', title: 'nav.zones', component: lazy(() => import('../screens/zones/ZonesScreen.tsx').then((m) => ({ default: m.ZonesScreen }))) },
  { path: '/reports', title: 'nav.reports', component: lazy(() => import('../screens/reports/ReportsScreen.tsx').then((m) => ({ default: m.ReportsScreen }))) },
  { path: '/checkins', title: 'nav.checkins', component: lazy(() => import('../screens/checkins/CheckinsScreen.tsx').then((m) => ({ default: m.CheckinsScreen }))) },
  { path: '/statuses', title: 'nav.statuses', component: lazy(() => import('../screens/statuses/StatusesScreen.tsx').then((m) => ({ default: m.StatusesScreen }))) },
];
