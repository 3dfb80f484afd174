import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './styles.css';

createRoot(document.getElementById('root')!).render(<App />);
// The service worker makes the app installable and lets it open offline (public/sw.js).
if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(() => {});
