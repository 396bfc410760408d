// One turn on the page: the person's message and the agent's answer, built from the turn's events
// as they stream (or replayed), or from the stored turn view of GET /api/conversations/{id}.
//
// Commands are kept by commandId (cmd-{iteration}-{index}): each <shell> tag is its own block with
// its own status, so the same command written twice shows twice.

import { LiveMarkdown } from './live-markdown.js';
import { copyButton, costText, element, formatCount, renderBudget, renderMarkdown, safeHttpUrl, scrollable, splitShell } from './render.js';

const STATUS_LABEL = {
  queued: 'queued',
  running: 'running…',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  unknown: 'unknown',
};

/** A command's status from its tool-result, as the server records it. */
export function commandStatus(exitCode, result) {
  if (exitCode === 130 && typeof result === 'string' && result.startsWith('[not run')) {
    return 'cancelled';
  }
  return exitCode === 0 ? 'completed' : 'failed';
}

const OPEN_OUTPUT_LINES = 12;
/** A streaming answer is rendered at most this often, and less often when rendering it takes longer (see scheduleRender). */
const RENDER_INTERVAL_MS = 40;
/** The shortest prompt the common providers cache (OpenAI's rule; Gemini Flash and most Claude models agree). */
const CACHE_MINIMUM_TOKENS = 1024;
const CONTENT_EVENTS = new Set(['text', 'reasoning', 'tool-call', 'raw-content', 'tool-output', 'usage']);

/**
 * Marks where the model's view of the conversation starts after a context cut: right above the entry
 * keptFromSeq (a turn's message, or a step inside a turn too big to keep whole). The messages
 * above the mark are still shown, but the model no longer sees them: it reads the note instead. A cut
 * is marked once; false when its entry is not on the page (yet).
 *
 * @param turnsEl the element holding the turns' elements
 * @param entries the conversation's stored entries (GET /api/conversations/{id}), which hold that seq
 */
export function markContextCut(turnsEl, entries, keptFromSeq, note) {
  if (turnsEl.querySelector(`.context-cut[data-kept-from="${keptFromSeq}"]`)) {
    return true;
  }
  const entry = entries.find(e => e.seq === keptFromSeq);
  const turnEl = entry && turnsEl.querySelector(`.turn[data-turn="${entry.turn}"]`);
  if (!turnEl) {
    return false;
  }
  let above = turnEl.firstElementChild; // the person's message
  if (entry.role === 'assistant') {
    const step = entries.filter(e => e.turn === entry.turn && e.role === 'assistant' && e.seq < keptFromSeq).length;
    above = turnEl.querySelector(`.iteration[data-iteration="${step}"]`);
  }
  if (!above) {
    return false; // that step is not shown yet (a turn being replayed): its event marks it
  }
  const mark = element('details', 'context-cut');
  mark.dataset.keptFrom = String(keptFromSeq);
  mark.append(
    element('summary', null, 'The conversation outgrew the model\'s context window: the model no longer sees the messages above this line.'),
    element('pre', 'context-note', note));
  above.before(mark);
  return true;
}

function actionButton(className, text, label, title, onClick) {
  const button = element('button', 'button ' + className, text);
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.title = title;
  button.addEventListener('click', onClick);
  return button;
}

export class TurnView {
  /**
   * @param userMessage the person's message, shown as sent
   * @param actions {retry(userMessage), reconnect(), retryable(code), chips(attachments)}: what the error's button does,
   *   whether Retry can help; the chips of stored attachments
   * @param attachmentsEl the chips of the files sent with the message, or null
   */
  constructor(userMessage, actions, attachmentsEl = null) {
    this.userMessage = userMessage;
    this.actions = actions;
    this.iterations = [];
    this.commands = new Map(); // commandId -> {command, status, result, exitCode, el}
    this.status = 'running';
    this.renderTimer = null;
    this.renderMs = 0; // how long the last render of the streaming answer took
    this.changePending = false;

    this.el = element('article', 'turn');
    this.el.dataset.status = 'running';
    const user = element('div', 'message user');
    this.userEl = user;
    if (userMessage !== '' || !attachmentsEl) {
      user.append(element('div', 'bubble user-text', userMessage));
    }
    user.append(this.userActions());
    this.answer = element('div', 'message assistant');
    this.answer.setAttribute('aria-busy', 'true');
    this.iterationsEl = element('div', 'iterations');
    this.progress = element('div', 'progress', 'Thinking…');
    this.sourcesEl = element('ul', 'sources');
    this.sourcesEl.hidden = true;
    this.errorEl = element('div', 'turn-error');
    this.errorEl.setAttribute('role', 'alert');
    this.errorEl.hidden = true;
    this.meta = element('div', 'turn-meta');
    this.rawEl = element('details', 'raw');
    this.rawEl.append(element('summary', null, 'Raw transcript'));
    this.rawEl.hidden = true;
    this.answer.append(this.iterationsEl, this.progress, this.sourcesEl, this.errorEl, this.meta, this.answerActions(), this.rawEl);
    if (attachmentsEl) {
      this.el.append(attachmentsEl);
    }
    this.el.append(user, this.answer);
  }

  /** Under the person's message: copy it, and edit it (the edit is a new version of the message, a fork of the conversation). */
  userActions() {
    const actions = element('div', 'message-actions user-actions');
    const edit = actionButton('edit', 'Edit', 'Edit this message and send it again',
      'Edit and resend: a new version of this message and what follows it; the earlier version stays, a switch away', () => this.startEdit());
    actions.append(copyButton('Copy this message', () => this.userMessage), edit);
    return actions;
  }

  /** Under the answer: copy its text, and (on the last turn, by CSS) regenerate it. */
  answerActions() {
    const actions = element('div', 'message-actions answer-actions');
    const regenerate = actionButton('regenerate', 'Regenerate', 'Regenerate this answer',
      'Ask again: a new version of this answer; the earlier version stays, a switch away',
      () => this.actions.edit(this.turnNumber(), this.userMessage));
    actions.append(copyButton('Copy the answer', () => this.answerText()), regenerate);
    return actions;
  }

  /** The answer as the person reads it: the Markdown of every step, without the commands. */
  answerText() {
    return this.iterations.map(it => splitShell(it.text, false).filter(part => part.kind === 'markdown')
      .map(part => part.text.trim()).join('\n\n')).filter(text => text).join('\n\n');
  }

  turnNumber() {
    return Number(this.el.dataset.turn);
  }

  /** The message in a box to change; Enter (or Send) sends the new text in a fork, Escape cancels. */
  startEdit() {
    const bubble = this.userEl.querySelector('.user-text');
    const actions = this.userEl.querySelector('.user-actions');
    const form = element('form', 'edit-form');
    const box = element('textarea', 'edit-input');
    box.value = this.userMessage;
    box.setAttribute('aria-label', 'Edited message');
    box.rows = Math.min(12, Math.max(2, this.userMessage.split('\n').length));
    const send = element('button', 'button primary', 'Send');
    send.type = 'submit';
    const cancel = element('button', 'button', 'Cancel');
    cancel.type = 'button';
    const buttons = element('div', 'edit-buttons');
    buttons.append(cancel, send);
    form.append(box, buttons);
    bubble.hidden = true;
    actions.hidden = true;
    this.userEl.append(form);
    box.focus();
    const close = () => {
      form.remove();
      bubble.hidden = false;
      actions.hidden = false;
    };
    cancel.addEventListener('click', close);
    form.addEventListener('submit', event => {
      event.preventDefault();
      if (box.value.trim() !== '') {
        close();
        this.actions.edit(this.turnNumber(), box.value);
      }
    });
    box.addEventListener('keydown', event => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      } else if (event.key === 'Escape') {
        event.preventDefault(); // cancels the edit only
        close();
        this.userEl.querySelector('.edit').focus();
      }
    });
  }

  /** The server's number of this turn (0, 1, 2, …), once known: what a context cut's mark finds it by. */
  numbered(turnNumber) {
    this.el.dataset.turn = String(turnNumber);
    return this;
  }

  // ---- building from events -------------------------------------------------------------------

  /** Applies one event of the turn (see the README's event table). */
  apply(event) {
    // Only what an iteration shows creates it: a turn stopped before its first token has none.
    const it = CONTENT_EVENTS.has(event.type) ? this.iteration(event.iteration ?? 0) : null;
    switch (event.type) {
      case 'text':
        it.text += event.content;
        this.setProgress('Writing…');
        this.scheduleRender(it);
        break;
      case 'reasoning':
        it.reasoning += event.content;
        this.setProgress('Reasoning…');
        this.scheduleRender(it);
        break;
      case 'tool-call':
        this.command(event.commandId, event.command);
        this.scheduleRender(it); // its block appears with the next render, queued (an answer may hold thousands)
        break;
      case 'tool-start':
        this.updateCommand(event.commandId, event.command, { status: 'running' });
        this.setProgress('Running ' + event.command.split('\n')[0] + '…');
        break;
      case 'tool-result':
        this.updateCommand(event.commandId, event.command, {
          status: commandStatus(event.exitCode, event.result), result: event.result, exitCode: event.exitCode,
        });
        break;
      case 'raw-content':
        it.raw = event.rawContent;
        it.text = event.rawContent;
        this.renderIteration(it);
        break;
      case 'tool-output':
        it.toolOutput = event.toolOutput;
        this.renderRaw();
        break;
      case 'usage':
        it.usage = event;
        break;
      case 'source':
        this.addSource(event.url, event.title);
        break;
      case 'context-cut':
        break; // marked where the model's view now starts, which may be an earlier turn: see markContextCut
      case 'iteration-end':
        if (event.hasMoreCommands) {
          this.setProgress('Thinking…');
        }
        break;
      case 'done':
        this.finish(event.stopReason === 'cancelled' ? 'cancelled' : 'complete', event.stopReason,
          event, event.iterations);
        break;
      case 'error':
        this.finish('failed', null, null, this.iterations.length);
        this.showError(event.message || 'The turn failed', this.retryAction(event.code));
        break;
      default:
        break; // an event type this page does not know: ignore it
    }
  }

  iteration(index) {
    while (this.iterations.length <= index) {
      const i = this.iterations.length;
      const el = element('section', 'iteration');
      el.dataset.iteration = String(i);
      el.setAttribute('aria-label', 'Step ' + (i + 1));
      const reasoning = element('details', 'reasoning');
      reasoning.append(element('summary', null, 'Reasoning'));
      const reasoningText = element('div', 'reasoning-text');
      reasoning.append(reasoningText);
      reasoning.hidden = true;
      const content = element('div', 'content markdown');
      el.append(reasoning, content);
      this.iterationsEl.append(el);
      this.iterations.push({
        index: i, text: '', reasoning: '', raw: null, toolOutput: null, usage: null,
        el, reasoningEl: reasoning, reasoningText, content, dirty: false, live: null,
      });
    }
    return this.iterations[index];
  }

  command(id, text) {
    let command = this.commands.get(id);
    if (!command) {
      command = { id, command: text, status: 'queued', result: null, exitCode: null, el: null, userToggled: false };
      this.commands.set(id, command);
    }
    return command;
  }

  updateCommand(id, text, changes) {
    const command = this.command(id, text);
    if (!command.el && this.renderTimer !== null) {
      this.flush(); // its block is shown as it was (queued) before it changes
    }
    Object.assign(command, changes);
    if (command.el) {
      this.paintCommand(command);
      this.changed(); // its output may have made the turn taller
    }
  }

  // ---- building from the stored turn view ------------------------------------------------------

  /**
   * Fills the view from a stored turn (GET /api/conversations/{id}: turns[i]) and its entries.
   * The text shown is exactly the stored rawContent; nothing is re-derived from events.
   */
  static fromStored(turn, entries, actions) {
    const view = new TurnView(turn.userMessage ?? '', actions, turn.attachments ? actions.chips(turn.attachments) : null).numbered(turn.turn);
    const assistants = entries.filter(e => e.turn === turn.turn && e.role === 'assistant');
    (turn.iterations || []).forEach((stored, i) => {
      const it = view.iteration(i);
      it.raw = stored.rawContent;
      it.text = stored.rawContent;
      it.toolOutput = stored.toolOutput ?? null;
      it.usage = stored.usage ?? null;
      const replay = assistants[i] && assistants[i].replay;
      if (replay && /reasoning/.test(replay.format) && replay.data) {
        it.reasoning = replay.data;
      }
      for (const c of stored.commands || []) {
        const command = view.command(c.commandId, c.command);
        command.status = c.status || 'unknown';
        command.result = c.result ?? null;
        command.exitCode = c.exitCode ?? null;
      }
      for (const s of stored.sources || []) {
        view.addSource(s.url, s.title);
      }
      view.renderIteration(it);
    });
    const status = turn.status;
    if (status === 'running') {
      return view; // the caller follows its events
    }
    const usage = turn.usage || view.summedUsage();
    const stopReason = turn.stopReason || (status === 'cancelled' ? 'cancelled' : null);
    view.finish(status === 'complete' || status === 'cancelled' || status === 'failed' ? status : 'interrupted',
      stopReason, usage, (turn.iterations || []).length);
    view.showCost(usage);
    if (turn.error) {
      view.showError(turn.error.message || 'The turn failed', view.retryAction(turn.error.code));
    } else if (status === 'interrupted' || status === 'unknown') {
      view.showError('This turn was cut off (the server stopped while it ran).', 'retry');
    }
    return view;
  }

  summedUsage() {
    const total = {};
    for (const it of this.iterations) {
      for (const key of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens']) {
        if (it.usage && typeof it.usage[key] === 'number') {
          total[key] = (total[key] || 0) + it.usage[key];
        }
      }
    }
    return total;
  }

  // ---- rendering -------------------------------------------------------------------------------

  /**
   * Renders the streaming answer soon. The pause is at least twice the last render's time, so an
   * answer that is costly to render leaves the page two thirds of its time however fast it streams.
   */
  scheduleRender(it) {
    it.dirty = true;
    if (this.renderTimer === null) {
      this.renderTimer = setTimeout(() => this.flush(), Math.max(RENDER_INTERVAL_MS, 2 * this.renderMs));
    }
  }

  /** Renders whatever changed since the last render, now. */
  flush() {
    if (this.renderTimer !== null) {
      clearTimeout(this.renderTimer);
      this.renderTimer = null;
    }
    const started = performance.now();
    for (const it of this.iterations) {
      if (it.dirty) {
        this.renderIteration(it);
      }
    }
    this.renderMs = performance.now() - started;
  }

  /**
   * Shows an iteration's text: Markdown between command blocks. While the turn streams, each Markdown
   * part is a LiveMarkdown, which renders only what changed; once it ends, the whole text is rendered
   * once more (with the references defined anywhere in it, and every code block highlighted).
   */
  renderIteration(it) {
    it.dirty = false;
    if (it.reasoning) {
      it.reasoningEl.hidden = false;
      it.reasoningText.textContent = it.reasoning;
    }
    const streaming = it.raw === null;
    const live = streaming && this.status === 'running';
    it.live = live ? (it.live ?? { budget: renderBudget(), markdown: [] }) : null;
    const budget = live ? it.live.budget : renderBudget(); // one message's, shared by its parts
    const nodes = [];
    let markdownParts = 0;
    for (const part of splitShell(it.text, streaming)) {
      if (part.kind === 'markdown') {
        if (live) {
          it.live.markdown[markdownParts] ??= new LiveMarkdown(decorateCodeBlocks, budget);
          appendAll(nodes, it.live.markdown[markdownParts].update(part.text));
        } else {
          const fragment = renderMarkdown(part.text, budget);
          decorateCodeBlocks(fragment);
          appendAll(nodes, fragment.childNodes);
        }
        markdownParts++;
      } else if (part.kind === 'command') {
        const command = this.command(`cmd-${it.index}-${part.index}`, part.command);
        if (!command.el) {
          command.el = this.commandElement(command);
          this.paintCommand(command); // from then on, updateCommand paints its changes
        }
        nodes.push(command.el);
      } else {
        const unfinished = part.kind === 'unfinished';
        const pending = element('div', unfinished ? 'command unfinished' : 'command writing');
        const head = element('div', 'command-head');
        head.append(element('span', 'prompt', '$'), element('code', 'command-text', part.command),
          element('span', 'status', unfinished ? 'not run: unfinished' : 'writing…'));
        pending.append(head);
        if (unfinished) {
          pending.title = 'The answer stopped before this command was complete, so it never ran.';
        }
        nodes.push(pending);
      }
    }
    showNodes(it.content, nodes);
    this.renderRaw();
    this.changed();
  }

  commandElement(command) {
    const block = element('details', 'command');
    block.dataset.commandId = command.id;
    const summary = element('summary', 'command-head');
    const text = element('code', 'command-text');
    const status = element('span', 'status');
    summary.append(element('span', 'prompt', '$'), text, status);
    const output = scrollable(element('pre', 'command-output'));
    const exit = element('div', 'command-exit');
    const copy = copyButton('Copy the output of ' + command.command.split('\n')[0], () => command.result ?? '', 'copy-output');
    block.append(summary, output, exit, copy);
    block.addEventListener('toggle', () => {
      if (block.open !== command.autoOpen) {
        command.userToggled = true; // the person opened or closed it: leave it so
      }
    });
    command.parts = { text, status, output, exit, copy };
    return block;
  }

  paintCommand(command) {
    const { el, parts } = command;
    el.dataset.status = command.status;
    parts.text.textContent = command.command;
    parts.status.textContent = STATUS_LABEL[command.status] || command.status;
    parts.status.className = 'status status-' + command.status;
    const hasResult = command.result !== null && command.result !== undefined;
    parts.output.hidden = !hasResult;
    parts.output.textContent = hasResult ? command.result : ''; // text only: a result never becomes HTML
    parts.exit.hidden = !(hasResult && command.exitCode !== 0 && command.exitCode !== null);
    parts.exit.textContent = parts.exit.hidden ? '' : 'exit code ' + command.exitCode;
    parts.copy.hidden = !hasResult;
    if (!command.userToggled) {
      // Short outputs are shown; long ones start collapsed (one click opens them).
      command.autoOpen = hasResult && command.result.split('\n').length <= OPEN_OUTPUT_LINES;
      el.open = command.autoOpen;
    }
    el.setAttribute('aria-label', `Command ${command.command.split('\n')[0]}: ${command.status}`);
  }

  renderRaw() {
    const stored = this.iterations.filter(it => it.raw !== null);
    this.rawEl.hidden = stored.length === 0;
    const blocks = [this.rawEl.firstChild];
    for (const it of stored) {
      const raw = scrollable(element('pre', 'raw-content', it.raw));
      raw.dataset.iteration = String(it.index);
      blocks.push(element('div', 'raw-label', 'assistant (iteration ' + (it.index + 1) + ')'), raw);
      if (it.toolOutput !== null) {
        const tool = scrollable(element('pre', 'raw-tool-output', it.toolOutput));
        tool.dataset.iteration = String(it.index);
        blocks.push(element('div', 'raw-label', 'tool'), tool);
      }
    }
    this.rawEl.replaceChildren(...blocks);
  }

  addSource(url, title) {
    const li = element('li');
    const safe = safeHttpUrl(url);
    if (safe) {
      const a = element('a', null, title || safe);
      a.href = safe;
      a.target = '_blank';
      a.rel = 'noopener noreferrer nofollow';
      li.append(a);
    } else {
      li.textContent = title || url;
    }
    this.sourcesEl.append(li);
    this.sourcesEl.hidden = false;
  }

  setProgress(text) {
    if (this.status === 'running') {
      this.progress.textContent = text;
    }
  }

  /** The turn ended: complete, cancelled (stopped), failed or interrupted. */
  finish(status, stopReason, usage, iterationCount) {
    if (this.renderTimer !== null) {
      clearTimeout(this.renderTimer);
      this.renderTimer = null;
    }
    this.status = status; // from here on the text is rendered whole
    for (const it of this.iterations) {
      if (it.dirty || (it.raw === null && it.text) || it.live) {
        this.renderIteration(it);
      }
    }
    this.el.dataset.status = status;
    this.answer.removeAttribute('aria-busy');
    this.progress.hidden = true;
    const parts = [];
    if (usage && typeof usage.inputTokens === 'number') {
      parts.push('in ' + formatCount(usage.inputTokens));
    }
    if (usage && typeof usage.outputTokens === 'number') {
      parts.push('out ' + formatCount(usage.outputTokens));
    }
    if (usage && typeof usage.cacheReadTokens === 'number' && usage.inputTokens > 0) {
      parts.push('cache ' + Math.round(100 * usage.cacheReadTokens / usage.inputTokens) + '%');
    }
    if (usage && typeof usage.cacheWriteTokens === 'number') {
      parts.push('written ' + formatCount(usage.cacheWriteTokens));
    }
    if (iterationCount) {
      parts.push(iterationCount === 1 ? '1 iteration' : iterationCount + ' iterations');
    }
    this.meta.replaceChildren();
    if (status === 'cancelled') {
      const nothing = this.iterations.every(it => !it.text && !it.reasoning);
      this.meta.append(element('span', 'stopped', nothing ? 'Stopped before the first word' : 'Stopped'));
      if (this.actions.continue) {
        // A new turn that asks the model to go on: the stopped answer stays as stored, so the prompt only grows.
        this.meta.append(actionButton('continue', 'Continue', 'Continue the stopped answer',
          'Ask the model to go on from where it stopped (sent as a new message)', () => this.actions.continue()));
      }
    }
    if (stopReason === 'max-iterations') {
      this.meta.append(element('span', 'stopped', 'Iteration limit reached'));
    }
    if (parts.length) {
      const stats = element('span', 'stats', parts.join(' · '));
      stats.title = 'Tokens sent and received, the share of the prompt read from the provider\'s cache, the tokens written to it, '
        + 'and model calls';
      this.meta.append(stats);
    }
    const why = this.whyNothingCached(usage);
    if (why) {
      const note = element('span', 'cache-note', why.short);
      note.title = why.long;
      this.meta.append(note);
    }
    this.costEl = element('span', 'cost');
    this.costEl.title = 'What this turn cost, at the prices of the conversation\'s model';
    this.costEl.hidden = true;
    this.meta.append(this.costEl);
    this.changed();
  }

  /**
   * Why "cache 0%" is no fault, when it is not: every call's prompt was under the minimum providers cache
   * (1,024 tokens for OpenAI, Gemini Flash and most Claude models; more for some), or this is the chat's
   * first request, whose prompt nothing was cached for yet. Null when something was cached, or when neither explains it.
   */
  whyNothingCached(usage) {
    if (!usage || usage.cacheReadTokens !== 0 || !(usage.inputTokens > 0)) {
      return null;
    }
    const prompts = this.iterations.map(it => it.usage && it.usage.inputTokens).filter(n => typeof n === 'number');
    const largest = prompts.length ? Math.max(...prompts) : usage.inputTokens;
    if (largest < CACHE_MINIMUM_TOKENS) {
      return {
        short: 'prompt too short to cache',
        long: `Each request's prompt was under ${formatCount(CACHE_MINIMUM_TOKENS)} tokens (${formatCount(largest)} at most): `
          + 'providers cache only longer prompts (OpenAI from 1,024 tokens), so 0% is expected, not a fault. '
          + 'It rises once the conversation is longer.',
      };
    }
    if (this.el.dataset.turn === '0' && prompts.length <= 1) {
      return {
        short: 'first request: nothing cached yet',
        long: 'The first request of a chat fills the provider\'s cache; the next ones read it back.',
      };
    }
    return null;
  }

  /**
   * Shows the turn's cost as the server priced its stored usage (GET /api/conversations/{id}): dollars, or
   * "cost unknown". A live turn's done event carries no price: its cost shows once the stored turn is read back.
   */
  showCost(storedUsage) {
    const text = costText(storedUsage);
    if (this.costEl) {
      this.costEl.textContent = text ?? '';
      this.costEl.hidden = !text;
    }
  }

  /** 'retry' when sending the message again may help (not for a missing key or a message over the limit), else null. */
  retryAction(code) {
    return this.actions.retryable(code) ? 'retry' : null;
  }

  /**
   * Shows an error inline with a button: 'retry' sends the message again, 'reconnect' follows the turn again;
   * no button (null) where neither can help.
   */
  showError(message, action) {
    this.errorEl.replaceChildren(element('span', 'error-text', message));
    this.errorEl.hidden = false;
    this.progress.hidden = true;
    if (!action) {
      this.changed();
      return;
    }
    const button = element('button', 'button', action === 'reconnect' ? 'Reconnect' : 'Retry');
    button.type = 'button';
    button.addEventListener('click', () => {
      this.errorEl.hidden = true;
      if (action === 'reconnect') {
        this.actions.reconnect(this);
      } else {
        this.actions.retry(this.userMessage);
      }
    });
    this.errorEl.append(button);
    this.errorEl.hidden = false;
    this.progress.hidden = true;
    this.changed();
  }

  /** Marks a turn that could not start (the request failed before any event). */
  failedToStart(message, action) {
    this.finish('failed', null, null, 0);
    this.showError(message, action);
  }

  /**
   * Tells the page the turn may have changed size, once for all the changes made in one go: the page
   * then lays itself out to scroll, and a thousand commands' results in one read would lay it out a
   * thousand times (2.5 s).
   */
  changed() {
    if (this.onChange && !this.changePending) {
      this.changePending = true;
      queueMicrotask(() => {
        this.changePending = false;
        this.onChange();
      });
    }
  }
}

/** Adds every item of a list (or NodeList) to an array, however long (a spread would hit the call's argument limit). */
function appendAll(array, items) {
  for (const item of items) {
    array.push(item);
  }
}

/**
 * Makes {@code nodes} the children of {@code parent}, leaving in place the leading ones that already are
 * (a streaming answer's settled blocks), so the browser does not lay them out again.
 */
function showNodes(parent, nodes) {
  let child = parent.firstChild;
  let kept = 0;
  while (child && kept < nodes.length && child === nodes[kept]) {
    child = child.nextSibling;
    kept++;
  }
  while (child) {
    const next = child.nextSibling;
    child.remove();
    child = next;
  }
  const fragment = document.createDocumentFragment();
  for (let i = kept; i < nodes.length; i++) {
    fragment.append(nodes[i]);
  }
  parent.append(fragment);
}

/** A bar above each code block (its language, Copy): over a block that scrolls sideways, a button would cover the code. */
function decorateCodeBlocks(fragment) {
  for (const pre of fragment.querySelectorAll('pre')) {
    const code = pre.querySelector('code') || pre;
    const language = [...code.classList].find(c => c.startsWith('language-'));
    const block = element('div', 'code-block');
    const head = element('div', 'code-head', language ? language.slice('language-'.length) : 'code');
    head.append(copyButton('Copy this code', () => code.textContent, 'copy-code'));
    pre.replaceWith(block);
    block.append(head, pre);
  }
}
