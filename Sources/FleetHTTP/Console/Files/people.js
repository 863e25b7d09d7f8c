// fleetd console: the Mail view (notification rules, /api/v1/notifications)
// and the People view (users, /api/v1/users, admins only). Loaded after
// console.js, whose helpers ($, el, api, state, ALERT_TYPES, q) it uses.
'use strict';

const list = (text) => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

function showProblems(box, err) {
  const problems = (err.body && err.body.problems) || [];
  // With problems listed, the title heads them (the detail repeats them).
  const head = problems.length && err.body.error ? err.body.error + ':' : err.message;
  box.replaceChildren(el('p', { class: 'error', text: head }),
    el('ul', { class: 'error' }, ...problems.map((p) => el('li', { text: p }))));
}

// ---- mail -----------------------------------------------------------------

function describeMails(r) {
  let text = r.digest_s === 0 ? 'each alert' : `digest of ${duration(r.digest_s)}`;
  if (r.quiet_hours) text += `, quiet ${r.quiet_hours}`;
  return text;
}

async function loadRules() {
  const box = $('rule-status');
  try {
    const rules = (await api('/api/v1/notifications')).items;
    $('rule-list').querySelector('tbody').replaceChildren(...rules.map((r) => {
      const remove = r.origin === 'api'
        ? el('button', { class: 'link', title: `delete rule ${r.name}`, onclick: (e) => { e.stopPropagation(); deleteRule(r.name); } }, '×')
        : el('span', { class: 'muted', title: 'defined in the config file', text: 'config' });
      return el('tr', { class: 'clickable', onclick: () => editRule(r) },
        el('td', { text: r.name }), el('td', { text: r.to.join(', ') }),
        el('td', { text: r.types.length ? r.types.map((t) => t.replaceAll('_', ' ')).join(', ') : 'every type' }),
        el('td', { text: describeMails(r) }), el('td', {}, remove));
    }));
    $('rule-note').textContent = rules.length ? '' : 'No rules yet: nothing is mailed.';
  } catch (err) {
    showProblems(box, err);
  }
}

function editRule(r) {
  $('rule-name').value = r.name;
  $('rule-to').value = r.to.join(', ');
  for (const o of $('rule-types').options) o.selected = r.types.includes(o.value);
  $('rule-devices').value = r.devices.join(', ');
  $('rule-digest').value = String(r.digest_s);
  $('rule-quiet').value = r.quiet_hours || '';
  $('rule-zone').value = r.time_zone;
}

async function deleteRule(name) {
  const box = $('rule-status');
  try {
    await api(`/api/v1/notifications/${q(name)}`, { method: 'DELETE' });
    box.replaceChildren(el('p', { class: 'ok', text: `Rule ${name} deleted.` }));
    await loadRules();
  } catch (err) {
    showProblems(box, err);
  }
}

$('rule-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const box = $('rule-status');
  const name = $('rule-name').value.trim();
  const body = {
    to: list($('rule-to').value),
    types: [...$('rule-types').selectedOptions].map((o) => o.value),
    devices: list($('rule-devices').value),
    digest_s: Number($('rule-digest').value),
    quiet_hours: $('rule-quiet').value.trim() || null,
    time_zone: $('rule-zone').value.trim() || 'UTC',
  };
  try {
    const r = await api(`/api/v1/notifications/${q(name)}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    box.replaceChildren(el('p', { class: 'ok', text: `Rule ${r.name} saved: mails ${r.to.join(', ')}.` }));
    await loadRules();
  } catch (err) {
    showProblems(box, err);
  }
});

let mailPrepared = false;
function prepareMail() {
  if (mailPrepared) return;
  mailPrepared = true;
  $('rule-types').replaceChildren(...ALERT_TYPES.map((t) => el('option', { value: t, text: t.replaceAll('_', ' ') })));
  $('rule-zone').value = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const admin = state.role === 'admin';
  // A user's rules are addressed to them alone (the API stores their name).
  $('rule-to').value = admin ? '' : state.user;
  $('rule-to').readOnly = !admin;
  $('rule-to').placeholder = admin ? 'ops@example.com, a user' : '';
}

// ---- people ---------------------------------------------------------------

function sees(u) {
  if (u.role === 'driver') return u.key ? `key ${u.key}` : `vehicle ${u.device}`;
  return u.groups.length ? u.groups.join(', ') : 'every vehicle';
}

async function loadUsers() {
  const box = $('user-status');
  try {
    const users = (await api('/api/v1/users')).items;
    $('user-list').querySelector('tbody').replaceChildren(...users.map((u) => {
      const remove = u.name === state.user
        ? el('span', { class: 'muted', text: 'you' })
        : el('button', { class: 'link', title: `remove ${u.name}`, onclick: (e) => { e.stopPropagation(); removeUser(u.name); } }, '×');
      return el('tr', { class: 'clickable', onclick: () => editUser(u) },
        el('td', { text: u.name }), el('td', { text: u.role }), el('td', { text: sees(u) }),
        el('td', { text: u.email || '–' }), el('td', {}, remove));
    }));
  } catch (err) {
    showProblems(box, err);
  }
}

function editUser(u) {
  $('user-name').value = u.name;
  $('user-role').value = u.role;
  $('user-password').value = '';
  $('user-groups').value = u.groups.join(', ');
  $('user-device').value = u.device || '';
  $('user-key').value = u.key || '';
  $('user-email').value = u.email || '';
}

async function removeUser(name) {
  const box = $('user-status');
  if (!window.confirm(`Remove user ${name}? Their sessions end.`)) return;
  try {
    await api(`/api/v1/users/${q(name)}`, { method: 'DELETE' });
    box.replaceChildren(el('p', { class: 'ok', text: `User ${name} removed.` }));
    await loadUsers();
  } catch (err) {
    showProblems(box, err);
  }
}

$('user-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const box = $('user-status');
  const name = $('user-name').value.trim();
  const role = $('user-role').value;
  const body = {
    role,
    groups: role === 'viewer' || role === 'operator' ? list($('user-groups').value) : [],
    device: role === 'driver' ? ($('user-device').value.trim() || null) : null,
    key: role === 'driver' ? ($('user-key').value.trim() || null) : null,
    email: $('user-email').value.trim() || null,
  };
  const password = $('user-password').value;
  if (password !== '') body.password = password;
  try {
    const u = await api(`/api/v1/users/${q(name)}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    $('user-password').value = '';
    box.replaceChildren(el('p', { class: 'ok', text: `User ${u.name} saved: ${u.role}, sees ${sees(u)}.` }));
    await loadUsers();
  } catch (err) {
    showProblems(box, err);
  }
});

document.querySelector('.tab[data-tab="mail"]').addEventListener('click', () => {
  prepareMail();
  loadRules();
});
document.querySelector('.tab[data-tab="people"]').addEventListener('click', loadUsers);
