/** Renderer entry: mounts the app. Monaco is configured lazily by the source view. */
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './views/App'
import './state/theme-store' // sets <html data-theme> before the first paint
import './styles/base.css'
import './styles/layout.css'
import './styles/heat.css'

const root = document.getElementById('root')
if (!root) throw new Error('index.html lacks #root')
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>
)
