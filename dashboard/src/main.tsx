/** Entry: open the connection with the token this tab holds, then render. */
import { render } from 'preact';
import { App } from './app.js';
import { Connection } from './live/connection.js';
import { ConnectionContext } from './live/context.js';
import { readToken } from './live/token.js';
import { applyTheme, initialTheme } from './ui/header.js';
import './styles.css';

applyTheme(initialTheme());
const connection = new Connection(readToken());
connection.start();
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(
    <ConnectionContext.Provider value={connection}>
      <App />
    </ConnectionContext.Provider>,
    root,
  );
}
