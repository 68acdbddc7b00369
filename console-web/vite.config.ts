import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The daemon serves dist/ at the root of the control address, so assets use absolute `/` paths
// (deep links like /events/… resolve them correctly after the SPA fallback).
const controlUrl = 'http://127.0.0.1:9901';

export default defineConfig({
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    proxy: {
      '/trpc': { target: controlUrl, ws: true, changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/trpc': { target: controlUrl, ws: true, changeOrigin: false },
    },
  },
});
