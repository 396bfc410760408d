// The message box and what goes with a message: Enter sends, Shift+Enter adds a line, the box grows with its text;
// files picked (+), dropped anywhere on the chat, pasted images, or a long paste turned into a text file; the example
// prompts of an empty chat.
import { ACCEPT, PendingAttachments, isLongPaste } from './attachments.js';
import { acceptDroppedFiles } from './drop-zone.js';

export class Composer {
  /**
   * @param parts    the page's elements: form, input, chat (where files may be dropped), attach (the + button),
   *                 fileInput, pendingList (where picked files show), stopButton, examples
   * @param preview  shows an attached file
   * @param toast    tells the person something
   * @param shownProvider the provider the next message goes to (an image its model does not see is refused when
   *                 picked, with the reason), or null while unknown
   * @param busy     whether a turn is being followed (then nothing is sent)
   * @param send     sends a message with its files
   * @param stop     stops the turn
   */
  constructor(parts, { preview, toast, shownProvider, busy, send, stop }) {
    const { form, input, chat, attach, fileInput, pendingList, stopButton, examples } = parts;
    this.input = input;
    this.pending = new PendingAttachments(pendingList, preview, toast, shownProvider);
    const pending = this.pending;

    form.addEventListener('submit', event => {
      event.preventDefault();
      const text = input.value;
      if (busy() || (text.trim() === '' && pending.files.length === 0)) {
        return;
      }
      input.value = '';
      this.autosize();
      send(text, pending.take());
    });

    fileInput.accept = ACCEPT;
    attach.addEventListener('click', () => fileInput.click());
    fileInput.addEventListener('change', () => {
      pending.add([...fileInput.files]);
      fileInput.value = ''; // the same file may be picked again
      input.focus();
    });
    acceptDroppedFiles(chat, files => {
      pending.add(files);
      input.focus();
    });
    input.addEventListener('paste', event => {
      const images = event.clipboardData ? [...event.clipboardData.files].filter(file => file.type.startsWith('image/')) : [];
      if (images.length) {
        event.preventDefault(); // a screenshot or a copied picture becomes a chip (a copied image may carry its URL as text too)
        images.forEach(image => pending.addPastedImage(image));
        return;
      }
      const text = event.clipboardData ? event.clipboardData.getData('text/plain') : '';
      if (text && isLongPaste(text)) {
        event.preventDefault(); // a long document becomes a chip, not a bubble thousands of pixels tall
        if (pending.addPastedText(text)) {
          toast('The long paste was attached as a text file.');
        }
      }
    });

    input.addEventListener('keydown', event => {
      if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey && !event.isComposing) {
        event.preventDefault(); // Enter sends; Shift+Enter keeps its default: a new line
        form.requestSubmit();
      }
    });
    input.addEventListener('input', () => this.autosize());
    stopButton.addEventListener('click', stop);

    for (const example of examples) {
      example.addEventListener('click', () => {
        send(example.textContent.trim());
        input.focus(); // the next message can be typed at once
      });
    }
  }

  autosize() {
    this.input.style.height = 'auto';
    this.input.style.height = Math.min(this.input.scrollHeight, 220) + 'px';
  }

  /** Puts a message that was not sent back into the empty box, so it is not lost. */
  keep(text) {
    if (this.input.value.trim() === '') {
      this.input.value = text;
      this.autosize();
    }
    this.input.focus();
  }

  /** The shown provider changed: the picked images are checked again against its model. */
  providerChanged() {
    this.pending.recheck();
  }
}
