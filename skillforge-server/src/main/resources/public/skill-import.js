// Importing skills: a .zip dropped on the skills panel, or picked with its Import button. The server checks the whole
// zip before it writes anything; its answer (the skills imported, or every problem) shows in the panel.

import { api } from './api.js';
import { acceptDroppedFiles } from './drop-zone.js';
import { element } from './render.js';

export class SkillImport {
  constructor(panel, onImported) {
    this.panel = panel;
    this.onImported = onImported;
    this.status = document.getElementById('skills-status');
    const input = document.getElementById('skills-import-file');
    document.getElementById('skills-import').addEventListener('click', () => input.click());
    input.addEventListener('change', () => {
      if (input.files.length) {
        this.import(input.files[0]);
      }
      input.value = '';
    });
    acceptDroppedFiles(panel, files => this.import(files[0]));
  }

  async import(file) {
    this.say('Importing ' + file.name + '…', false);
    let answer;
    try {
      answer = await api.importSkills(file);
    } catch (e) {
      this.say(`${file.name} was not imported: ` + (e.problems.length ? '' : e.message), true, e.problems);
      return;
    }
    const names = answer.imported.map(skill => `${skill.name} (version ${skill.version})`).join(', ');
    this.say(`Imported ${names}.`, false);
    await this.onImported(answer.imported.map(skill => skill.name));
  }

  /** A line in the panel: what happened, or what is wrong (each problem on its own line). */
  say(text, failed, problems = []) {
    this.status.replaceChildren(element('span', null, text));
    if (problems.length) {
      const list = element('ul', 'skill-problems');
      problems.forEach(problem => list.append(element('li', null, problem)));
      this.status.append(list);
    }
    this.status.classList.toggle('failed', failed);
    this.status.setAttribute('role', failed ? 'alert' : 'status');
    this.status.hidden = false;
  }

  clear() {
    this.status.hidden = true;
  }
}
