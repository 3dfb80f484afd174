/**
 * The console's screens: one entry per screen, in navigation order. A new screen is a folder under
 * screens/ and one line here (docs/console.md#adding-a-screen).
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { MessageKey } from '../i18n/i18n.ts';
import { MonitorScreen } from '../screens/monitor/MonitorScreen.tsx';

export interface ScreenDef {
  path: string;
  title: MessageKey;
  component: ComponentType | LazyExoticComponent<ComponentType>;
}

export const SCREENS: ScreenDef[] = [
  { path: '/', title: 'nav.monitor', component: MonitorScreen },
  // Later screens load when first opened: the first screen's bundle stays small.
  { path: '/history', title: 'nav.history', component: lazy(() => import('../screens/history/HistoryScreen.tsx').then((m) => ({ default: m.HistoryScreen }))) },
  { path: '/dispatch', title: 'nav.dispatch', component: lazy(() => import('../screens/dispatch/DispatchScreen.tsx').then((m) => ({ default: m.DispatchScreen }))) },
];
