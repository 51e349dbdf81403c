/** The connection and its state, shared with every room through Preact context. */
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type { Connection, Params } from './connection.js';
import type { LiveState } from './store.js';

export const ConnectionContext = createContext<Connection | null>(null);

export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (connection === null) throw new Error('useConnection outside <ConnectionContext.Provider>');
  return connection;
}

export function useLive(): LiveState {
  const connection = useConnection();
  const [state, setState] = useState(connection.current);
  useEffect(() => {
    setState(connection.current);
    return connection.subscribe(setState);
  }, [connection]);
  return state;
}

export interface Asked<T> {
  readonly data: T | null;
  readonly error: { code: string; kind: string; message: string } | null;
  readonly loading: boolean;
}

/** The live state's epoch alone: a component re-renders when a snapshot arrives, not on every frame. */
function useEpoch(connection: Connection): number {
  const [epoch, setEpoch] = useState(connection.current.epoch);
  useEffect(() => {
    setEpoch(connection.current.epoch);
    return connection.subscribe((state) => setEpoch(state.epoch));
  }, [connection]);
  return epoch;
}

/**
 * Asks a question and asks again whenever `params` or `again` change (pass a tick from the live state to
 * follow the stream), and on every snapshot (a reconnect, a token entered or forgotten), so an answer lost
 * with the link or refused for want of a token comes back by itself. The previous answer stays on screen
 * while the next one is on its way.
 */
export function useQuestion<T>(what: string | null, params: Params = {}, again: unknown = 0): Asked<T> {
  const connection = useConnection();
  const epoch = useEpoch(connection);
  const key = JSON.stringify(params);
  const [asked, setAsked] = useState<Asked<T>>({ data: null, error: null, loading: what !== null });
  useEffect(() => {
    if (what === null) return undefined;
    let live = true;
    setAsked((prev) => ({ ...prev, loading: true }));
    connection.ask(what, params).then(
      (data) => live && setAsked({ data: data as T, error: null, loading: false }),
      (err: Error & { code?: string; kind?: string }) => {
        const code = err.code ?? 'failed';
        if (live)
          setAsked({
            data: null,
            error: { code, kind: err.kind ?? code, message: err.message },
            loading: false,
          });
      },
    );
    return () => {
      live = false;
    };
  }, [connection, what, key, again, epoch]);
  return asked;
}
