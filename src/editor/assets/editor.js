/*
 * The editors' console: progressive enhancement of the server-rendered pages.
 * Plain browser APIs only (fetch, EventSource, <dialog>, TextEncoder); no inline scripts anywhere,
 * so the pages run under script-src 'self'. Every action calls the REST API the way any client
 * does (same rules, same CSRF check: the browser sends this page's Origin) and shows its message.
 */
(() => {
  'use strict';
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  function announce(msg, isError) {
    const el = $('#status');
    if (!el) return;
    el.textContent = msg;
    el.classList.toggle('error', Boolean(isError));
  }

  class ApiError extends Error {
    constructor(message, status, code, details) {
      super(message);
      this.status = status;
      this.code = code;
      this.details = details;
    }
  }

  async function api(method, path, body, retried) {
    const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    if (r.status === 401 && !retried && !path.startsWith('/api/v1/wallet/')) {
      // The access cookie lasts an hour; the refresh cookie renews it once, then the call is retried.
      const rr = await fetch('/api/v1/wallet/refresh/', { method: 'POST', credentials: 'same-origin' });
      if (rr.ok) return api(method, path, body, true);
    }
    let data = null;
    try {
      data = await r.json();
    } catch {
      data = null;
    }
    if (!r.ok) {
      const e = data && data.error;
      let msg = (e && e.message) || `HTTP ${r.status}`;
      if (e && e.details && Array.isArray(e.details.fields)) msg += ': ' + e.details.fields.map((f) => `${f.path.replace(/^body\./, '')} ${f.message}`).join('; ');
      throw new ApiError(msg, r.status, e && e.code, e && e.details);
    }
    return data;
  }

  // ---------------------------------------------------------------------------------------------
  // Sign in / sign out (EIP-1193: eth_requestAccounts, personal_sign of the issued message)

  function toHex(text) {
    return '0x' + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  async function signIn() {
    const out = $('#signin-error');
    out.textContent = '';
    const eth = window.ethereum;
    if (!eth || typeof eth.request !== 'function') {
      out.textContent = 'No wallet found in this browser (an EIP-1193 provider such as a wallet extension is needed).';
      return;
    }
    const btn = $('#signin');
    btn.disabled = true;
    try {
      const accounts = await eth.request({ method: 'eth_requestAccounts' });
      const address = accounts && accounts[0];
      if (!address) throw new Error('the wallet shared no account');
      const n = await api('GET', `/api/v1/wallet/nonce/${address}/`);
      const signature = await eth.request({ method: 'personal_sign', params: [toHex(n.message), address] });
      await api('POST', '/api/v1/wallet/verify/', { address, signature, nonce: n.nonce });
      location.reload();
    } catch (err) {
      out.textContent = `Sign-in failed: ${err && err.message ? err.message : err}`;
      btn.disabled = false;
    }
  }

  async function signOut() {
    try {
      await api('POST', '/api/v1/wallet/logout/', {});
    } catch {
      /* the cookies are cleared by the response when it can; reload either way */
    }
    location.href = '/editor/';
  }

  // ---------------------------------------------------------------------------------------------
  // Items and decisions

  const STATUS_WORDS = { approved: 'approved', killed: 'killed', scheduled: 'scheduled', retracted: 'retracted', submitted: 'submitted' };

  const itemOf = (el) => el && el.closest('.item');
  const items = () => $$('.item');

  function markDecided(item, status, text, elsewhere) {
    item.dataset.status = status;
    item.classList.add('decided');
    item.classList.toggle('elsewhere', Boolean(elsewhere));
    const out = $('.outcome', item);
    if (out) out.textContent = text;
    const statusCell = $('#item-status');
    if (statusCell && item.classList.contains('item-page')) statusCell.textContent = STATUS_WORDS[status] || status;
    if (item.matches('#queue .item')) {
      for (const b of $$('.actions button', item)) b.disabled = true;
      updateCount();
    } else {
      renderActions(item, status);
    }
  }

  function renderActions(item, status) {
    const box = $('.actions', item);
    if (!box) return;
    const can = {
      approve: ['submitted', 'scheduled', 'killed'],
      kill: ['submitted', 'scheduled'],
      schedule: ['submitted', 'scheduled', 'killed'],
      retract: ['approved'],
    };
    for (const b of $$('button', box)) b.hidden = !can[b.dataset.act].includes(status);
    if (status === 'approved' && !$('button[data-act=retract]', box)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.act = 'retract';
      b.setAttribute('aria-keyshortcuts', 'r');
      b.textContent = 'Retract…';
      box.append(b);
    }
  }

  function updateCount() {
    const total = $('#queue-total');
    if (!total) return;
    const waiting = items().filter((i) => i.dataset.status === 'submitted').length;
    const shownAll = !$('#queue-count').textContent.includes('newest');
    if (shownAll) total.textContent = String(waiting);
    const empty = $('#queue-empty');
    if (empty) empty.hidden = waiting > 0;
  }

  async function decide(item, action, body) {
    const id = item.dataset.id;
    const r = await api('POST', `/api/v1/news/${id}/${action}`, body);
    item.dataset.local = '1';
    const a = r.article;
    const when = a.scheduled_for ? ` for ${new Date(a.scheduled_for).toLocaleString()}` : '';
    const reason = a.decision ? ` (${a.decision.label}${a.decision.duplicate_of ? ` #${a.decision.duplicate_of}` : ''})` : '';
    markDecided(item, a.status, `You ${STATUS_WORDS[a.status] || a.status} this${when}${reason}.`, false);
    announce(`#${id} ${a.status}${reason}.`);
  }

  function refused(item, err) {
    const out = $('.outcome', item);
    const msg = `Refused: ${err.message}`;
    if (out) out.textContent = msg;
    announce(msg, true);
    if (err.code === 'illegal_transition' && err.details && err.details.current_status) {
      markDecided(item, err.details.current_status, `${msg}. Decided elsewhere: ${err.details.current_status}.`, true);
    }
  }

  // Dialogs: one per action kind, shared by every item on the page.
  let dialogItem = null;
  let lastFocus = null;

  function openDialog(id, item) {
    const d = $(id);
    if (!d) return;
    dialogItem = item;
    lastFocus = document.activeElement;
    const f = $('form', d);
    f.reset();
    $('.dialog-error', d).textContent = '';
    $('.target', d).textContent = `#${item.dataset.id}`;
    if (id === '#schedule-dialog') {
      const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';
      $('.tz', d).textContent = tz;
      const at = new Date(Date.now() + 3600_000);
      at.setSeconds(0, 0);
      const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      $('#schedule-at').value = local;
      showUtc();
    }
    d.showModal();
    const first = $('select, input', d);
    if (first) first.focus();
  }

  function closeDialog(d) {
    d.close();
    if (lastFocus && document.contains(lastFocus)) lastFocus.focus();
    else if (dialogItem) focusItem(dialogItem);
    dialogItem = null;
  }

  function showUtc() {
    const v = $('#schedule-at').value;
    const d = v ? new Date(v) : null;
    $('#schedule-utc').textContent = d && !Number.isNaN(d.getTime()) ? d.toISOString() : '—';
  }

  function decisionBody(form) {
    const body = { reason: form.reason.value };
    const note = form.note.value.trim();
    if (note) body.note = note;
    const dup = form.duplicate_of.value.trim();
    if (dup) body.duplicate_of = /^\d+$/.test(dup) ? Number(dup) : dup;
    return body;
  }

  async function submitDialog(ev, action) {
    ev.preventDefault();
    const form = ev.target;
    const d = form.closest('dialog');
    const item = dialogItem;
    if (!item) return closeDialog(d);
    let body;
    if (action === 'schedule') {
      const at = new Date(form.publish_at.value);
      if (Number.isNaN(at.getTime())) {
        $('.dialog-error', d).textContent = 'Pick a date and time.';
        return;
      }
      body = { publish_at: at.toISOString() };
    } else {
      body = decisionBody(form);
    }
    const submit = $('button[type=submit]', form);
    submit.disabled = true;
    try {
      await decide(item, action, body);
      closeDialog(d);
    } catch (err) {
      if (err.code === 'illegal_transition' || (err.status === 404 && err.code === 'article_not_found')) {
        closeDialog(d);
        refused(item, err);
      } else {
        $('.dialog-error', d).textContent = `Refused: ${err.message}`;
      }
    } finally {
      submit.disabled = false;
    }
  }

  async function act(item, action) {
    if (!item || (item.classList.contains('decided') && item.matches('#queue .item'))) return;
    const btn = $(`.actions button[data-act=${action}]`, item);
    if (!btn || btn.disabled || btn.hidden) return;
    if (action === 'kill') return openDialog('#kill-dialog', item);
    if (action === 'schedule') return openDialog('#schedule-dialog', item);
    if (action === 'retract') return openDialog('#retract-dialog', item);
    btn.disabled = true;
    try {
      await decide(item, action);
    } catch (err) {
      refused(item, err);
    } finally {
      if (!item.matches('#queue .item') || !item.classList.contains('decided')) btn.disabled = false;
    }
  }

  // A story's group in the queue: approve the chosen member, kill the others as its duplicates (one request, one transaction).
  async function approveStory(btn) {
    const group = btn.closest('.story-group');
    const out = $('.story-outcome', group);
    const articleId = Number($('.story-pick', group).value);
    btn.disabled = true;
    try {
      const r = await api('POST', `/api/v1/stories/${btn.dataset.storyApprove}/approve`, { article_id: articleId });
      const item = (id) => $(`#item-${id}`, group);
      if (item(articleId)) markDecided(item(articleId), 'approved', 'You approved this for the story.', false);
      for (const id of r.killed) if (item(id)) markDecided(item(id), 'killed', `You killed this (duplicate #${articleId}).`, false);
      out.textContent = `Approved #${articleId}; killed ${r.killed.length} as its duplicates.`;
      announce(out.textContent);
    } catch (err) {
      out.textContent = `Refused: ${err.message}`;
      announce(out.textContent, true);
      btn.disabled = false;
    }
  }

  // Edit form (item page): only the fields that changed are sent.
  function splitList(v) {
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  // Asset tags of the item page: add by id, remove by button (POST / DELETE /api/v1/news/{id}/assets/);
  // the page is reloaded after a change so the list shows the tags as stored.
  async function changeAssetTag(id, asset, remove) {
    const err = $('#asset-error');
    err.textContent = '';
    try {
      if (remove) await api('DELETE', `/api/v1/news/${id}/assets/${encodeURIComponent(asset)}/`);
      else await api('POST', `/api/v1/news/${id}/assets/`, { asset });
      location.reload();
    } catch (e) {
      err.textContent = e.message;
    }
  }

  function wireAssetTags() {
    const form = $('#asset-add');
    if (!form) return;
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const asset = form.asset.value.trim().toLowerCase();
      if (asset) changeAssetTag(form.dataset.id, asset, false);
    });
    for (const b of $$('.asset-remove')) b.addEventListener('click', () => changeAssetTag(form.dataset.id, b.dataset.asset, true));
  }

  async function submitEdit(ev) {
    ev.preventDefault();
    const f = ev.target;
    const err = $('#edit-error');
    err.textContent = '';
    const orig = (name) => f.elements[name].defaultValue;
    const body = {};
    if (f.headline.value !== orig('headline')) body.headline = f.headline.value;
    if (f.tags.value !== orig('tags')) body.tags = splitList(f.tags.value);
    if (f.token_addresses.value !== orig('token_addresses')) body.token_addresses = splitList(f.token_addresses.value);
    if (f.token_symbols.value !== orig('token_symbols')) body.token_symbols = splitList(f.token_symbols.value);
    if (f.issuer_name.value !== orig('issuer_name') || f.issuer_website.value !== orig('issuer_website')) {
      const name = f.issuer_name.value.trim() || null;
      const website = f.issuer_website.value.trim() || null;
      body.issuer = name === null && website === null ? null : { name, website };
    }
    if (f.content_type.value !== orig('content_type')) body.content_type = f.content_type.value.trim() || null;
    if (Object.keys(body).length === 0) {
      announce('Nothing changed.');
      return;
    }
    try {
      const r = await api('PATCH', `/api/v1/news/${f.dataset.id}/`, body);
      const changed = Object.keys(r.changes);
      announce(changed.length ? `Saved: ${changed.join(', ')}.` : 'Nothing changed.');
      for (const el of $$('input', f)) el.defaultValue = el.value;
      const h = $('.item-page h1');
      if (h) h.textContent = r.article.headline;
    } catch (e) {
      err.textContent = `Refused: ${e.message}`;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Provenance fragments: fetched for items the page rendered as "checking"; two at a time.

  const provQueue = [];
  let provRunning = 0;

  function queueProvenance(root = document) {
    for (const p of $$('.prov[data-prov=pending]', root)) {
      if (!p.dataset.queued) {
        p.dataset.queued = '1';
        provQueue.push({ id: p.dataset.id, tries: 0 });
      }
    }
    pumpProvenance();
  }

  function pumpProvenance() {
    while (provRunning < 2 && provQueue.length) {
      const job = provQueue.shift();
      provRunning++;
      fetchProvenance(job).finally(() => {
        provRunning--;
        pumpProvenance();
      });
    }
  }

  async function fetchProvenance(job) {
    const el = $(`.prov[data-id="${job.id}"]`);
    if (!el) return;
    try {
      const r = await fetch(`/editor/items/${job.id}/provenance`, { credentials: 'same-origin' });
      if (r.status === 200) {
        el.outerHTML = await r.text();
        return;
      }
      if (r.status === 202 && ++job.tries < 20) {
        setTimeout(() => {
          provQueue.push(job);
          pumpProvenance();
        }, 3000);
        return;
      }
      $('.verdict', el).textContent = 'Provenance: not available right now (reload to retry).';
    } catch {
      $('.verdict', el).textContent = 'Provenance: not available right now (reload to retry).';
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Live updates: the ws process's Server-Sent Events (editors receive pre-publication events).

  const DECISIONS = { 'news.approved': 'approved', 'news.killed': 'killed', 'news.scheduled': 'scheduled', 'news.retracted': 'retracted' };

  async function addRow(id) {
    const queue = $('#queue');
    if (!queue || $(`#item-${id}`)) return;
    const r = await fetch(`/editor/items/${id}/row`, { credentials: 'same-origin' });
    if (!r.ok || $(`#item-${id}`)) return;
    queue.insertAdjacentHTML('afterbegin', await r.text());
    const row = $(`#item-${id}`);
    row.classList.add('fresh');
    const h = $('h2', row);
    announce(`New in the queue: ${h ? h.textContent : '#' + id}`);
    updateCount();
    relativeTimes(row);
    queueProvenance(row);
  }

  function onEvent(e) {
    if (!e || typeof e.id !== 'number') return;
    if (e.type === 'news.submitted' || e.type === 'news.tsunami_promoted') {
      if (e.status === 'submitted' || e.type === 'news.tsunami_promoted') addRow(e.id).catch(() => undefined);
      return;
    }
    const status = DECISIONS[e.type];
    if (!status) return;
    const item = $(`.item[data-id="${e.id}"]`);
    if (!item || item.dataset.status === status) return;
    if (item.dataset.local === '1' && item.dataset.status === status) return;
    markDecided(item, status, `Decided elsewhere: ${status}.`, true);
    announce(`#${e.id} was ${status} by another editor.`);
  }

  /**
   * Why the stream refused the page: EventSource does not expose a refusal (say 503
   * capacity_exceeded when an address holds too many connections), so one plain request asks and
   * reads the error body and Retry-After. A stream that answers now is closed at once.
   */
  async function streamRefusal(url) {
    const ctl = new AbortController();
    try {
      const r = await fetch(url, { credentials: 'include', signal: ctl.signal, headers: { accept: 'text/event-stream' } });
      if (r.ok) return { message: null, retryAfterS: 0 };
      const data = await r.json().catch(() => null);
      const e = data && data.error;
      return { message: (e && e.message) || `HTTP ${r.status}`, retryAfterS: Number(r.headers.get('retry-after')) || 0 };
    } catch {
      return { message: 'the stream server does not answer', retryAfterS: 0 };
    } finally {
      ctl.abort();
    }
  }

  const STREAM_RETRY_MIN_S = 5;
  const STREAM_RETRY_MAX_S = 60;

  function connectStream(retryS = STREAM_RETRY_MIN_S) {
    const meta = $('meta[name=editor-stream]');
    const live = $('#live');
    if (!meta || !$('.item, #queue') || typeof EventSource === 'undefined') return;
    const es = new EventSource(meta.content, { withCredentials: true });
    const setLive = (state, text) => {
      if (!live) return;
      live.dataset.state = state;
      live.textContent = text;
    };
    let opened = false;
    es.onopen = () => {
      opened = true;
      setLive('open', 'Live: connected');
    };
    es.onerror = async () => {
      if (es.readyState !== 2) return setLive('connecting', 'Live: reconnecting…');
      // Closed for good by the browser (the server refused): say why, and try again later.
      es.close();
      const why = await streamRefusal(meta.content);
      const wait = Math.min(STREAM_RETRY_MAX_S, Math.max(why.retryAfterS, opened ? STREAM_RETRY_MIN_S : retryS));
      setLive('closed', `Live: disconnected${why.message ? ` (${why.message})` : ''}; retrying in ${wait} s`);
      setTimeout(() => connectStream(opened ? STREAM_RETRY_MIN_S : Math.min(STREAM_RETRY_MAX_S, retryS * 2)), wait * 1000);
    };
    es.onmessage = (m) => {
      try {
        onEvent(JSON.parse(m.data));
      } catch {
        /* not an event */
      }
    };
    es.addEventListener('reconcile', () => announce('The live stream skipped events; reload to be sure the queue is current.', true));
    window.editorStream = es;
  }

  // ---------------------------------------------------------------------------------------------
  // Moderation log page

  async function loadModlog(params) {
    const tbody = $('#modlog tbody');
    const err = $('#modlog-error');
    err.textContent = '';
    try {
      const qs = new URLSearchParams(params).toString();
      const r = await api('GET', `/api/v1/modlog/${qs ? '?' + qs : ''}`);
      tbody.replaceChildren(
        ...r.results.map((e) => {
          const tr = document.createElement('tr');
          if (e.article) tr.dataset.article = String(e.article.id);
          if (e.story) tr.dataset.story = String(e.story.id);
          tr.dataset.action = e.action;
          const cell = (text) => {
            const td = document.createElement('td');
            td.textContent = text;
            tr.append(td);
            return td;
          };
          const t = cell(new Date(e.created_at).toLocaleString());
          t.title = e.created_at;
          cell(e.action);
          const a = cell('');
          const link = document.createElement('a');
          if (e.article) {
            link.href = `/editor/items/${e.article.id}`;
            link.textContent = `#${e.article.id} ${e.article.headline}`;
          } else if (e.credibility) {
            const c = e.credibility;
            link.href = `/editor/credibility/?month=${encodeURIComponent(c.month)}`;
            link.textContent = `${e.action === 'credibility_confirm' ? 'confirmed' : 'cleared'} ${c.kind} of ${c.accounts} account${c.accounts === 1 ? '' : 's'} (${c.month})`;
          } else {
            const verb = e.action === 'story_merge' ? `merged story ${e.story.other_story_id} into` : `split ${e.story.items.length} out into story ${e.story.other_story_id} from`;
            link.href = `/api/v1/stories/${e.story.id}/`;
            link.textContent = `${verb} story ${e.story.id} ${e.story.headline}`;
          }
          a.append(link);
          let reason = e.reason_label || '';
          if (e.duplicate_of) reason += ` (duplicate of #${e.duplicate_of})`;
          if (e.note) reason += ` — note: ${e.note}`;
          cell(reason);
          cell(e.editor.name || '(deleted account)');
          return tr;
        }),
      );
    } catch (e) {
      err.textContent = `Could not load the log: ${e.message}`;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Credibility page (staff): confirm or clear a flag through the REST API

  async function decideFlag(btn) {
    const section = btn.closest('.flag');
    const act = btn.dataset.flagAct;
    const note = $('.flag-note', section).value.trim();
    const out = $('.flag-decision', section);
    for (const b of $$('button[data-flag-act]', section)) b.disabled = true;
    try {
      const f = await api('POST', `/api/v1/credibility/flags/${encodeURIComponent(section.dataset.flag)}/${act}`, note ? { note } : {});
      section.dataset.state = f.decision.decision;
      out.textContent = `${f.decision.decision === 'confirmed' ? 'Confirmed' : 'Cleared'} just now${f.decision.note ? ` (note: ${f.decision.note})` : ''}; the month is being recomputed.`;
      announce(out.textContent);
    } catch (err) {
      out.textContent = `Refused: ${err.message}`;
      announce(out.textContent, true);
    } finally {
      for (const b of $$('button[data-flag-act]', section))
        b.disabled = b.dataset.flagAct === 'confirm' ? section.dataset.state === 'confirmed' : section.dataset.state === 'cleared';
    }
  }

  // Ages: the server renders UTC times (rows are cached); here they read "5 min ago", the exact local time as a tooltip.
  function relativeTimes(root = document) {
    const now = Date.now();
    for (const t of $$('time.age', root)) {
      const at = Date.parse(t.dateTime);
      if (Number.isNaN(at)) continue;
      const s = Math.max(0, Math.round((now - at) / 1000));
      t.textContent = s < 60 ? `${s} s ago` : s < 3600 ? `${Math.floor(s / 60)} min ago` : s < 86_400 ? `${Math.floor(s / 3600)} h ago` : `${Math.floor(s / 86_400)} d ago`;
      t.title = new Date(at).toLocaleString();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Keyboard

  function focusItem(item) {
    if (!item) return;
    const target = $('a.open', item) || $('h1', item) || item;
    if (target === item || target.tagName === 'H1') target.setAttribute('tabindex', '-1');
    target.focus();
    item.scrollIntoView({ block: 'nearest' });
  }

  function currentItem() {
    return itemOf(document.activeElement) || $('.item-page') || null;
  }

  let pendingG = false;

  function onKey(ev) {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
    if ($('dialog[open]')) return;
    const k = ev.key;
    if (pendingG) {
      pendingG = false;
      if (k === 'q') {
        location.href = '/editor/';
        ev.preventDefault();
      }
      return;
    }
    const list = items();
    const cur = currentItem();
    const idx = cur ? list.indexOf(cur) : -1;
    switch (k) {
      case 'j':
        focusItem(list[Math.min(list.length - 1, idx + 1)]);
        break;
      case 'k':
        focusItem(list[Math.max(0, idx - 1)]);
        break;
      case 'o':
        if (cur && $('a.open', cur)) location.href = $('a.open', cur).href;
        break;
      case 'a':
        act(cur, 'approve');
        break;
      case 'x':
        act(cur, 'kill');
        break;
      case 's':
        act(cur, 'schedule');
        break;
      case 'r':
        act(cur, 'retract');
        break;
      case 'e': {
        const h = $('#edit-headline');
        if (h) h.focus();
        break;
      }
      case 'g':
        pendingG = true;
        break;
      case '?': {
        const d = $('#shortcuts');
        if (d) {
          d.open = !d.open;
          $('summary', d).focus();
        }
        break;
      }
      default:
        return;
    }
    ev.preventDefault();
  }

  // ---------------------------------------------------------------------------------------------

  function init() {
    const signin = $('#signin');
    if (signin) signin.addEventListener('click', signIn);
    const signout = $('#signout');
    if (signout) signout.addEventListener('click', signOut);

    document.addEventListener('click', (ev) => {
      const b = ev.target.closest('.actions button[data-act]');
      if (b) act(itemOf(b), b.dataset.act);
      const sb = ev.target.closest('button[data-story-approve]');
      if (sb && !sb.disabled) approveStory(sb);
      const c = ev.target.closest('dialog .cancel');
      if (c) closeDialog(c.closest('dialog'));
    });
    const forms = { '#kill-form': 'kill', '#schedule-form': 'schedule', '#retract-form': 'retract' };
    for (const [sel, action] of Object.entries(forms)) {
      const f = $(sel);
      if (f) f.addEventListener('submit', (ev) => submitDialog(ev, action));
    }
    for (const d of $$('dialog'))
      d.addEventListener('cancel', (ev) => {
        ev.preventDefault();
        closeDialog(d);
      });
    const at = $('#schedule-at');
    if (at) at.addEventListener('input', showUtc);
    const edit = $('#edit-form');
    if (edit) edit.addEventListener('submit', submitEdit);
    wireAssetTags();
    for (const t of $$('time.local')) t.textContent = new Date(t.dateTime).toLocaleString();
    relativeTimes();
    setInterval(relativeTimes, 30_000);

    const flags = $('#flags');
    if (flags)
      flags.addEventListener('click', (ev) => {
        const btn = ev.target.closest('button[data-flag-act]');
        if (btn) decideFlag(btn);
      });

    const ml = $('#modlog-filter');
    if (ml) {
      ml.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const p = {};
        if (ml.action.value) p.action = ml.action.value;
        if (ml.editor.value.trim()) p.editor = ml.editor.value.trim();
        loadModlog(p);
      });
      loadModlog({});
    }

    document.addEventListener('keydown', onKey);
    queueProvenance();
    connectStream();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
