// Markdown that grows while an answer streams, rendered without starting over at every chunk: the
// blocks that more text can no longer change are rendered once and kept (their nodes stay in the
// page), and only the rest, from the last of them on, is rendered again. Rendering the whole text at
// each chunk would cost the square of the answer's length over the stream.

import { BUDGET_NOTE, parseMarkdown, plainTextHtml, renderWithin } from './markdown.js';
import { highlight, plainText, sanitize } from './render.js';

/**
 * A block still being written past this many characters is shown as written until the answer ends:
 * rendering it again at every render would cost the square of its length (a 200,000-character
 * paragraph of "*a" took half a second a render). Code up to some 1,200 lines still renders live.
 */
const LIVE_BLOCK_CHARS = 50_000;
/**
 * The part still being written is rendered again at every render, so it gets at most this much of the
 * message's budget (some 50 ms); past it, it is shown as written until settled.
 */
const LIVE_LAYOUT_UNITS = 10_000;
const WRITING_NOTE = 'Shown as written while it is being written; rendered once the answer is complete.';

export class LiveMarkdown {
  /**
   * @param decorate called on each new sanitised fragment before its nodes are shown (code block bars)
   * @param budget   the message's (see renderBudget), shared with its other parts
   */
  constructor(decorate, budget) {
    this.decorate = decorate;
    this.budget = budget;
    this.reset();
  }

  reset() {
    this.seen = '';
    this.shown = []; // the nodes returned for it
    this.settledLength = 0; // the text up to here is shown by settledNodes, for good
    this.settledNodes = [];
    this.references = new Map();
    this.asWritten = null; // once set, the text from settledLength on is shown as written, after this note
  }

  /**
   * The nodes that show {@code text}: those kept from before when it extends the text seen last, new
   * ones for the rest. Code being written is not highlighted until its block is complete. Never throws:
   * on a failure the text is shown as written.
   */
  update(text) {
    if (text === this.seen) {
      return this.shown; // a part before a command: left alone, so what follows it is not laid out again
    }
    if (!text.startsWith(this.seen.slice(0, this.settledLength))) {
      this.reset();
    }
    this.seen = text;
    this.shown = this.render(text);
    return this.shown;
  }

  render(text) {
    try {
      const tail = text.slice(this.settledLength);
      if (this.asWritten) {
        return this.settledNodes.concat([...plainText(tail, this.asWritten).childNodes]);
      }
      const { blocks, settled } = parseMarkdown(tail, this.references);
      const done = renderWithin(blocks.slice(0, settled), this.references, this.budget);
      if (done.fit > 0) {
        const fragment = sanitize(done.html);
        highlight(fragment, this.budget);
        this.settledNodes = this.settledNodes.concat(this.nodes(fragment));
        this.settledLength += blocks[done.fit].start;
      }
      if (done.fit < settled) {
        this.asWritten = BUDGET_NOTE;
        return this.render(text);
      }
      const rest = blocks.slice(settled);
      if (rest.length > 0 && tail.length - rest[0].start > LIVE_BLOCK_CHARS) {
        this.asWritten = WRITING_NOTE;
        return this.render(text);
      }
      // Rendered again at the next render: its cost is taken for good only once it is settled.
      const shown = renderWithin(rest, this.references, { layout: Math.min(this.budget.layout, LIVE_LAYOUT_UNITS) });
      let html = shown.html;
      if (shown.fit < rest.length) {
        html += plainTextHtml(tail.slice(rest[shown.fit].start), WRITING_NOTE);
      }
      return this.settledNodes.concat(this.nodes(html));
    } catch {
      this.reset();
      return [...plainText(text).childNodes];
    }
  }

  /** HTML or a sanitised fragment -> its top-level nodes, decorated. */
  nodes(html) {
    const fragment = typeof html === 'string' ? sanitize(html) : html;
    this.decorate(fragment);
    return [...fragment.childNodes];
  }
}
