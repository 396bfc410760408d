// The person signed in, on a server with people (FORGE_OIDC_ISSUER): their name in the top bar, what
// is left of their monthly budget, their personal access tokens (made, shown once, revoked), signing
// out, and for an admin the people of the server (disable one, set their budget). On a server without
// people only the budget shows, and only when the operator set one.

import { ApiError, api } from './api.js';
import { copyButton, element, formatDollars } from './render.js';

const DATE = { dateStyle: 'medium' };
const DATE_TIME = { dateStyle: 'medium', timeStyle: 'short' };
const when = (iso, style = DATE_TIME) => (iso ? new Date(iso).toLocaleString(undefined, style) : 'never');

/** A budget's dollars to the cent, as the server words them: a turn's cost has its own, finer form (formatDollars). */
const cents = dollars => '$' + dollars.toFixed(2);

/** "$1.25 left of $5.00", or what was spent this month when there is no budget. */
export function budgetText(usage) {
  if (usage.budgetUsd === null || usage.budgetUsd === undefined) {
    return formatDollars(usage.spentUsd) + ' spent this month';
  }
  return `${cents(usage.leftUsd)} left of ${cents(usage.budgetUsd)}`;
}

export class Account {
  constructor(onError) {
    this.onError = onError;
    this.me = null;
    this.opener = document.getElementById('open-account');
    this.budget = document.getElementById('budget-left');
    this.dialog = document.getElementById('account-dialog');
    this.tokenForm = document.getElementById('token-form');
    this.tokenName = document.getElementById('token-name');
    this.tokens = document.getElementById('token-list');
    this.newToken = document.getElementById('new-token');
    this.people = document.getElementById('people-list');
    this.opener.addEventListener('click', () => this.open());
    document.getElementById('close-account').addEventListener('click', () => this.dialog.close());
    document.getElementById('sign-out').addEventListener('click', () => this.signOut());
    this.tokenForm.addEventListener('submit', event => {
      event.preventDefault();
      this.createToken();
    });
    this.dialog.addEventListener('close', () => this.newToken.replaceChildren()); // a token's secret is shown once
    window.addEventListener(ApiError.UNAUTHENTICATED, () => this.signedOut('Your session has ended.'));
  }

  /** Who is signed in and what is left to spend; shows the account's button on a server with people. */
  async load() {
    try {
      this.me = await api.me();
    } catch {
      return; // the page works without it; the budget shows after the next turn
    }
    if (this.me.team) {
      this.opener.textContent = this.me.name || this.me.email || 'Account';
      this.opener.title = [this.me.name, this.me.email].filter(Boolean).join(' · ');
      this.opener.hidden = false;
      document.getElementById('admin-section').hidden = !this.me.admin;
    }
    await this.refreshUsage();
  }

  /** The budget line in the top bar (after every turn: what it cost is counted by then). */
  async refreshUsage() {
    let usage;
    try {
      usage = await api.usage();
    } catch {
      return;
    }
    const limited = usage.budgetUsd !== null && usage.budgetUsd !== undefined;
    this.budget.hidden = !limited;
    if (limited) {
      this.budget.textContent = budgetText(usage);
      this.budget.classList.toggle('spent', usage.leftUsd <= 0);
      this.budget.title = `This month's budget: ${formatDollars(usage.spentUsd)} spent; it renews on ${when(usage.renewsAt, DATE)}`;
    }
    const line = document.getElementById('account-usage');
    line.textContent = budgetText(usage) + (limited ? ` (renews on ${when(usage.renewsAt, DATE)})` : '');
  }

  async open() {
    document.getElementById('account-name').textContent = this.me.name || this.me.email || this.me.id;
    document.getElementById('account-email').textContent = this.me.name && this.me.email ? this.me.email : '';
    this.dialog.showModal();
    await Promise.all([this.refreshUsage(), this.showTokens(), this.me.admin ? this.showPeople() : null]);
  }

  // ---- personal access tokens ---------------------------------------------------------------------

  async showTokens() {
    let answer;
    try {
      answer = await api.tokens();
    } catch (e) {
      this.onError('Could not load your tokens: ' + e.message);
      return;
    }
    this.tokens.replaceChildren(...answer.tokens.map(token => this.tokenRow(token)));
    document.getElementById('tokens-empty').hidden = answer.tokens.length > 0;
  }

  tokenRow(token) {
    const row = element('li', 'token');
    row.dataset.id = token.id;
    const about = element('div', 'token-about');
    about.append(element('span', 'token-name', token.name),
      element('span', 'muted', `made ${when(token.createdAt, DATE)} · last used ${when(token.lastUsedAt)}`));
    const revoke = element('button', 'button danger', 'Revoke');
    revoke.type = 'button';
    revoke.setAttribute('aria-label', 'Revoke ' + token.name);
    revoke.addEventListener('click', () => this.revoke(token, revoke));
    row.append(about, revoke);
    return row;
  }

  async createToken() {
    const name = this.tokenName.value.trim();
    if (!name) {
      this.tokenName.focus();
      return;
    }
    let made;
    try {
      made = await api.createToken(name);
    } catch (e) {
      this.onError('Could not make the token: ' + e.message);
      return;
    }
    this.tokenName.value = '';
    const secret = element('code', 'token-secret', made.token);
    this.newToken.replaceChildren(element('p', null, `Your token "${name}": copy it now, it is not shown again.`), secret,
      copyButton('Copy the token', () => made.token));
    await this.showTokens();
  }

  /** Asks first (in place), then revokes: scripts and MCP clients using it stop at once. */
  async revoke(token, button) {
    if (button.dataset.confirm !== 'true') {
      button.dataset.confirm = 'true';
      button.textContent = 'Revoke: sure?';
      return;
    }
    try {
      await api.revokeToken(token.id);
    } catch (e) {
      this.onError('Could not revoke the token: ' + e.message);
    }
    await this.showTokens();
  }

  // ---- the people of the server (admins) ------------------------------------------------------------

  async showPeople() {
    let answer;
    try {
      answer = await api.people();
    } catch (e) {
      this.onError('Could not load the people: ' + e.message);
      return;
    }
    this.people.replaceChildren(...answer.users.map(person => this.personRow(person)));
  }

  personRow(person) {
    const row = element('tr', person.disabled ? 'disabled' : null);
    row.dataset.id = person.id;
    const who = element('td');
    who.append(element('span', 'person-name', person.name || person.email || person.subject));
    if (person.email && person.name) {
      who.append(element('span', 'muted', person.email));
    }
    if (person.admin) {
      who.append(element('span', 'skill-badge', 'admin'));
    }
    const seen = element('td', 'muted', `${when(person.firstSignIn, DATE)} – ${when(person.lastSignIn)}`);
    const counts = element('td', 'number', `${person.conversations} / ${person.tokens}`);
    const spent = element('td', 'number', formatDollars(person.spentUsd));

    const budgetCell = element('td');
    const budget = element('input', 'budget-input');
    budget.type = 'number';
    budget.min = '0';
    budget.step = '0.01';
    budget.placeholder = 'default';
    budget.value = person.monthlyBudgetUsd === null ? '' : String(person.monthlyBudgetUsd);
    budget.setAttribute('aria-label', 'Monthly budget in dollars for ' + (person.name || person.email || person.subject)
      + ' (empty: the server\'s default)');
    budget.addEventListener('change', () => this.change(person, { monthlyBudgetUsd: budget.value === '' ? null : Number(budget.value) }));
    budgetCell.append(budget);

    const stateCell = element('td');
    const disabled = element('input');
    disabled.type = 'checkbox';
    disabled.checked = person.disabled;
    disabled.disabled = person.id === this.me.id; // an admin cannot lock themselves out
    disabled.setAttribute('aria-label', 'Disabled: ' + (person.name || person.email || person.subject));
    disabled.addEventListener('change', () => this.change(person, { disabled: disabled.checked }));
    stateCell.append(disabled);
    row.append(who, seen, counts, spent, budgetCell, stateCell);
    return row;
  }

  async change(person, patch) {
    try {
      await api.changePerson(person.id, patch);
    } catch (e) {
      this.onError('Could not change ' + (person.name || person.email || person.subject) + ': ' + e.message);
    }
    await this.showPeople();
  }

  // ---- signing out ----------------------------------------------------------------------------------

  async signOut() {
    try {
      await api.signOut();
    } catch (e) {
      this.onError('Could not sign out: ' + e.message);
      return;
    }
    this.signedOut('You are signed out.');
  }

  /**
   * The page stops here with a way back in; it does not go to the issuer on its own, which would sign the
   * person in again at once while the issuer still knows them.
   */
  signedOut(message) {
    if (!this.me || !this.me.team || document.body.dataset.signedOut === 'true') {
      return;
    }
    document.body.dataset.signedOut = 'true';
    if (this.dialog.open) {
      this.dialog.close();
    }
    const notice = document.getElementById('signed-out');
    notice.querySelector('p').textContent = message;
    notice.hidden = false;
    document.getElementById('app').inert = true;
    notice.querySelector('a').focus();
  }
}
