// Following a growing chat to its bottom: it sticks to the end while the person reads there, lets go when they
// scroll up to read, and offers a "jump to the latest" button meanwhile.

/** Whether the messages follow their end; content that grows or shrinks must not count as the person scrolling. */
export class StickyScroll {
  /**
   * @param messages the scrolling element
   * @param jump     the button that jumps back to the end (hidden while at the end)
   * @param onJump   called after a jump (to focus the message box)
   */
  constructor(messages, jump, onJump) {
    this.messages = messages;
    this.jump = jump;
    this.stick = true;
    let lastUserScroll = 0;
    const userScrolls = () => { lastUserScroll = Date.now(); };
    messages.addEventListener('wheel', userScrolls, { passive: true });
    messages.addEventListener('touchmove', userScrolls, { passive: true });
    messages.addEventListener('pointerdown', userScrolls); // the scroll bar
    messages.addEventListener('keydown', event => {
      if (['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' '].includes(event.key)) {
        userScrolls();
      }
    });
    messages.addEventListener('scroll', () => {
      if (this.nearBottom()) {
        this.stick = true;
        jump.hidden = true;
      } else if (Date.now() - lastUserScroll < 1000) {
        this.stick = false;
      } else if (this.stick) {
        this.toEnd();
      }
    });
    jump.addEventListener('click', () => {
      this.stick = true;
      this.toEnd();
      onJump();
    });
  }

  nearBottom() {
    const m = this.messages;
    return m.scrollHeight - m.scrollTop - m.clientHeight < 48;
  }

  toEnd() {
    this.messages.scrollTop = this.messages.scrollHeight;
    this.jump.hidden = true;
  }

  /** The content grew or shrank: follow it to the end, or offer the jump. */
  contentChanged() {
    if (this.stick) {
      this.toEnd();
    } else {
      this.jump.hidden = false;
    }
  }
}
