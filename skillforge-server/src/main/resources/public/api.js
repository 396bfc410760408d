// The conversation and skills API, and a reader for the Server-Sent Events of a turn.

/** An answer that was not 2xx: carries the server's {"error": {code, message, problems?}}. */
export class ApiError extends Error {
  /** The window event sent when the server answers 401: the session ended (signed out elsewhere, expired, disabled). */
  static UNAUTHENTICATED = 'skillforge:unauthenticated';

  constructor(status, code, message, problems = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems;
  }
}

async function failure(response) {
  let code = 'http_' + response.status;
  let message = `The server answered ${response.status}`;
  let problems = [];
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
      problems = body.error.problems || [];
    }
  } catch {
    // not JSON: keep the generic message
  }
  if (response.status === 401) {
    window.dispatchEvent(new Event(ApiError.UNAUTHENTICATED));
  }
  return new ApiError(response.status, code, message, problems);
}

async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (!response.ok) {
    throw await failure(response);
  }
  return response.status === 204 ? null : response.json();
}

/** Sends bytes (a zip, a file) as {@code type}; the answer is JSON. */
async function send(method, path, type, bytes) {
  const response = await fetch(path, { method, headers: { Accept: 'application/json', 'Content-Type': type }, body: bytes });
  if (!response.ok) {
    throw await failure(response);
  }
  return response.json();
}

/** A skill's file path in a URL: each folder name encoded, the slashes kept. */
const filePath = path => path.split('/').map(encodeURIComponent).join('/');

const conversationPath = id => '/api/conversations/' + encodeURIComponent(id);
const skillPath = name => '/api/skills/' + encodeURIComponent(name);

export const api = {
  health: () => call('GET', '/healthz'),
  listConversations: () => call('GET', '/api/conversations?limit=100'),
  providers: () => call('GET', '/api/providers'),
  /** A new conversation, fixed to {@code provider} (a configured name) or, without one, to the default. */
  createConversation: provider => call('POST', '/api/conversations', provider ? { provider } : {}),
  conversation: id => call('GET', conversationPath(id)),
  rename: (id, title) => call('PATCH', conversationPath(id), { title }),
  /** A new version from {@code beforeTurn} on (an edited message, a regenerated answer): a new branch of the conversation's thread. */
  fork: (id, beforeTurn) => call('POST', conversationPath(id) + '/fork', { beforeTurn }),
  /** Makes branch {@code id} the one its thread's row in the list opens. */
  select: id => call('POST', conversationPath(id) + '/select'),
  search: query => call('GET', '/api/conversations/search?limit=50&q=' + encodeURIComponent(query)),
  exportUrl: (id, format) => conversationPath(id) + '/export?format=' + format,
  remove: id => call('DELETE', conversationPath(id)),
  stop: id => call('POST', conversationPath(id) + '/stop', {}),
  skills: () => call('GET', '/api/skills'),
  deletedSkills: () => call('GET', '/api/skills?deleted=true'),
  skill: name => call('GET', skillPath(name)),
  deleteSkill: name => call('DELETE', skillPath(name)),
  saveSkill: (name, content) => call('PUT', skillPath(name), { content }),
  skillVersions: name => call('GET', skillPath(name) + '/versions'),
  skillDiff: (name, from, to) => call('GET', skillPath(name) + `/diff?from=${from}&to=${to}`),
  restoreSkill: (name, version) => call('POST', skillPath(name) + `/versions/${version}/restore`, {}),
  importSkills: zip => send('POST', '/api/skills/import', 'application/zip', zip),
  skillDownloadUrl: name => skillPath(name) + '/SKILL.md',
  skillZipUrl: name => '/api/skills/' + encodeURIComponent(name) + '.zip',
  skillVersionZipUrl: (name, version) => skillPath(name) + `/versions/${version}.zip`,
  skillFileUrl: (name, path) => skillPath(name) + '/files/' + filePath(path),
  skillVersionFileUrl: (name, version, path) => skillPath(name) + `/versions/${version}/files/` + filePath(path),
  /** What a skill's download is called: named by the skill, as the server names it too. */
  skillFileName: name => name + '-SKILL.md',
  publishSkill: name => call('POST', skillPath(name) + '/publish', {}),
  me: () => call('GET', '/api/me'),
  settings: () => call('GET', '/api/me/settings'),
  saveSettings: settings => call('PUT', '/api/me/settings', settings),
  usage: () => call('GET', '/api/me/usage'),
  tokens: () => call('GET', '/api/tokens'),
  createToken: name => call('POST', '/api/tokens', { name }),
  revokeToken: id => call('DELETE', '/api/tokens/' + encodeURIComponent(id)),
  people: () => call('GET', '/api/admin/users'),
  changePerson: (id, patch) => call('PATCH', '/api/admin/users/' + encodeURIComponent(id), patch),
  signOut: () => call('POST', '/auth/logout', {}),

  /**
   * Starts a turn; resolves to the streaming response once its headers arrived. With files, the message goes
   * as multipart/form-data (fields content and attachments), which the browser sets with its boundary.
   */
  async sendMessage(id, content, signal, files = []) {
    let init;
    if (files.length) {
      const form = new FormData();
      form.append('content', content);
      files.forEach(file => form.append('attachments', file, file.name));
      init = { method: 'POST', headers: { Accept: 'text/event-stream' }, body: form, signal };
    } else {
      init = { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify({ content }), signal };
    }
    const response = await fetch(conversationPath(id) + '/messages', init);
    if (!response.ok) {
      throw await failure(response);
    }
    return response;
  },

  /** Re-attaches to the running (or last) turn after event {@code lastEventId}; null when there is none. */
  async events(id, lastEventId, signal) {
    const headers = { Accept: 'text/event-stream' };
    if (lastEventId) {
      headers['Last-Event-ID'] = String(lastEventId);
    }
    const response = await fetch(conversationPath(id) + '/events', { headers, signal });
    if (response.status === 204) {
      return null;
    }
    if (!response.ok) {
      throw await failure(response);
    }
    return response;
  },
};

/**
 * Reads a text/event-stream body and calls onEvent({id, data}) for each event, data parsed from JSON.
 * Comment lines (": ping") are skipped. Resolves when the body ends; rejects when it is cut or aborted.
 */
export async function readEvents(response, onEvent) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  // The pieces of a line not ended yet, joined once it ends: an event of a megabyte comes in many reads,
  // and adding each to one string searched again would copy all of it at every read.
  let partial = [];
  let id = null;
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      return;
    }
    let start = 0;
    let newline;
    while ((newline = value.indexOf('\n', start)) >= 0) {
      partial.push(value.slice(start, newline));
      let line = partial.join('');
      partial = [];
      start = newline + 1;
      if (line.endsWith('\r')) {
        line = line.slice(0, -1);
      }
      if (line === '') {
        if (data.length > 0) {
          onEvent({ id: id === null ? null : Number(id), data: JSON.parse(data.join('\n')) });
        }
        id = null;
        data = [];
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') {
          id = text;
        } else if (field === 'data') {
          data.push(text);
        }
      }
    }
    if (start < value.length) {
      partial.push(value.slice(start));
    }
  }
}
