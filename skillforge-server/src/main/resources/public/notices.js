// What the page tells a person in passing: a toast, an error in words, whether sending again can help.

const box = document.getElementById('toast');
let toastTimer = null;

/** A message at the top of the page for six seconds. */
export function toast(message) {
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

/** An error as a sentence for a person. */
export function describe(error) {
  if (error instanceof TypeError) {
    // fetch's own words ("Failed to fetch", "NetworkError…") say nothing to a person
    return 'The server cannot be reached: is it running? Check the terminal where you started it.';
  }
  return error && error.message ? error.message : String(error);
}

const NOT_RETRYABLE = new Set(['message_too_large', 'body_too_large', 'invalid_request', 'invalid_json', 'provider_no_key',
  'provider_not_configured', 'provider_prompt_blocked', 'provider_finish_content_filter', 'not_found']);

/** Whether sending the same message again can help: not for a message that is too long, a missing key, … */
export function retryable(code) {
  return !NOT_RETRYABLE.has(code);
}
