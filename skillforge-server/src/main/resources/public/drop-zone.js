// Files dropped on a part of the page: it is marked 'dropping' while files are dragged over it, and takes what is dropped.

/** Makes {@code element} take dropped files: {@code onFiles} gets them as an array. */
export function acceptDroppedFiles(element, onFiles) {
  element.addEventListener('dragover', event => {
    if (event.dataTransfer && [...event.dataTransfer.types].includes('Files')) {
      event.preventDefault();
      element.classList.add('dropping');
    }
  });
  element.addEventListener('dragleave', event => {
    if (event.target === element || !element.contains(event.relatedTarget)) {
      element.classList.remove('dropping');
    }
  });
  element.addEventListener('drop', event => {
    element.classList.remove('dropping');
    if (event.dataTransfer && event.dataTransfer.files.length) {
      event.preventDefault();
      onFiles([...event.dataTransfer.files]);
    }
  });
}
