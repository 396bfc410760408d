// The run cache: what this tab saw of a running turn, so a reload shows it at once and asks the server only for
// what it missed (Last-Event-ID). sessionStorage: per tab, gone with the tab.

const CACHE_PREFIX = 'skillforge.run.';
let pendingSave = null;
let pendingId = null;
let saveTimer = null;

export function readRunCache(id) {
  try {
    const value = sessionStorage.getItem(CACHE_PREFIX + id);
    return value ? JSON.parse(value) : null;
  } catch {
    return null;
  }
}

export function saveRunCache(id, cache) {
  try {
    sessionStorage.setItem(CACHE_PREFIX + id, JSON.stringify(cache));
  } catch {
    clearRunCache(id); // too big for storage: a reload then replays the whole turn from the server
  }
}

/** Forgets what was seen of a turn, a save still waiting included (the turn ended, or what is stored tells it all). */
export function clearRunCache(id) {
  if (pendingId === id) {
    pendingSave = null;
    pendingId = null;
  }
  try {
    sessionStorage.removeItem(CACHE_PREFIX + id);
  } catch {
    // storage unavailable: nothing to clear
  }
}

/** Saves within 250 ms: a turn's events come faster than storage needs writing. */
export function saveSoon(id, cache) {
  pendingSave = () => saveRunCache(id, cache);
  pendingId = id;
  if (!saveTimer) {
    saveTimer = setTimeout(flushSave, 250);
  }
}

export function flushSave() {
  clearTimeout(saveTimer);
  saveTimer = null;
  const save = pendingSave;
  pendingSave = null;
  pendingId = null;
  if (save) {
    save();
  }
}

window.addEventListener('pagehide', flushSave);
