// The live change feed: one stream of conversation changes per page (GET /api/conversations/changes), so every tab
// sees what the others (and other clients) change.

/**
 * Opens the stream and hands each change to {@code onChange}, and each (re)connection to {@code onOpen} (to catch up
 * with what was missed). EventSource reconnects by itself. A hidden tab closes its stream (a browser allows only six
 * connections to a server over HTTP/1.1, and each open stream holds one) and calls {@code onHidden}; shown again, it
 * reopens it.
 */
export function listenForChanges({ onOpen, onChange, onHidden }) {
  if (!window.EventSource) {
    return;
  }
  let changes = null;
  const open = () => {
    changes = new EventSource('/api/conversations/changes');
    changes.addEventListener('open', onOpen);
    changes.addEventListener('message', event => {
      let change;
      try {
        change = JSON.parse(event.data);
      } catch {
        return;
      }
      onChange(change);
    });
  };
  document.addEventListener('visibilitychange', () => {
    if (document.hidden && changes) {
      changes.close();
      changes = null;
      onHidden();
    } else if (!document.hidden && !changes) {
      open();
    }
  });
  if (!document.hidden) {
    open();
  }
}
