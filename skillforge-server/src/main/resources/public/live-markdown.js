// Markdown that grows while an answer streams, rendered without starting over at every chunk: the
// blocks that more text can no longer change are rendered once and kept (their nodes stay in the
// page), and only the rest, from the last of them on, is rendered again. Rendering the whole text at
// each chunk would cost the square of the answer's length over the stream.

import { fitting, plainTextHtml, renderBlocks } from './markdown.js';
import { highlight, plainText, sanitize } from './render.js';

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
    this.overBudget = false; // from settledLength on, the text is shown as written
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
      if (this.overBudget) {
        return this.settledNodes.concat(this.nodes(plainTextHtml(tail)));
      }
      const { blocks, settled } = renderBlocks(tail, this.references);
      const fit = fitting(blocks.slice(0, settled), this.budget);
      if (fit > 0) {
        const fragment = sanitize(blocks.slice(0, fit).map(block => block.html).join(''));
        highlight(fragment, this.budget);
        this.settledNodes = this.settledNodes.concat(this.nodes(fragment));
        this.settledLength += blocks[fit].start;
      }
      if (fit < settled) {
        this.overBudget = true;
        return this.settledNodes.concat(this.nodes(plainTextHtml(text.slice(this.settledLength))));
      }
      const rest = blocks.slice(settled);
      const shown = fitting(rest, { layout: this.budget.layout }); // taken for good only once settled
      let html = rest.slice(0, shown).map(block => block.html).join('');
      if (shown < rest.length) {
        html += plainTextHtml(tail.slice(rest[shown].start));
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
