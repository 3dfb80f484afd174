/** Entry point: the language, the map settings, then the application. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { MapSettingsContext } from './app/context.ts';
import { pickLanguage, setLanguage } from './i18n/i18n.ts';
import { loadMapSettings } from '../../shared/map/config.ts';
import './styles.css';

const [settings] = await Promise.all([loadMapSettings(), setLanguage(pickLanguage(navigator.languages ?? [navigator.language]))]);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MapSettingsContext.Provider value={settings}>
      <App />
    </MapSettingsContext.Provider>
  </StrictMode>,
);
