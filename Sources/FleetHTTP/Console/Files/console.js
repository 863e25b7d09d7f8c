// fleetd console: the live map, alerts, history, reports and fences, over
// fleetd's own API (/api/v1) and event stream. Leaflet draws the map;
// vehicles are drawn on one canvas layer, redrawn at most once per
// animation frame with every position that arrived since the last one.
// Text from the server is always set as text, never as HTML.
'use strict';

if (typeof L === 'undefined') {
  // Leaflet did not load (/leaflet/leaflet.js): say what to do, not a blank page.
  document.body.textContent =
    'The console cannot start: Leaflet is missing. Install Debian\'s libjs-leaflet package (or set http.leaflet_dir).';
  throw new Error('Leaflet is missing');
}

const config = JSON.parse(document.getElementById('fleetd-config').textContent || '{}');
const $ = (id) => document.getElementById(id);

/** What the page measures about itself (read by the browser tests). */
const stats = (window.fleetdStats = {
  positionEvents: 0, alertEvents: 0, alertsSkipped: 0, frames: 0, drawn: 0, lastDrawMs: 0,
  // For the devices in `watch`: the newest position drawn, {time, at}
  // (`time` the fix's, `at` the clock when its frame was drawn).
  watch: new Set(),
  drawnAt: {},
});

const state = {
  user: null,
  role: 'viewer',
  groupFilter: '',
  detail: null,
  map: null,
  vehicles: new Map(), // device -> {device, name, lat, lon, course, speed, time, silent}
  pending: new Map(),  // device -> position, applied at the next frame
  alerts: [],          // newest first
  alertsSkipped: 0,    // alerts of storms not listed live since the list was loaded
  selected: null,
  trail: null,
  fencesLayer: null,
  fenceLabels: [], // {name, lat, lon}
  corridors: [],
  fencesDoc: null,
  events: null,
  history: { positions: [], trips: [], line: null, tripLine: null, marker: null, timer: null },
};

// ---- API --------------------------------------------------------------

class APIError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || 'HTTP ' + status);
    this.status = status;
    this.body = body;
  }
}

async function api(path, options = {}) {
  const response = await fetch(path, Object.assign({ credentials: 'same-origin' }, options));
  const type = response.headers.get('content-type') || '';
  const body = type.includes('json') ? await response.json().catch(() => null) : await response.text();
  if (response.status === 401 && !path.endsWith('/session')) {
    showLogin('Your session has ended: log in again.');
  }
  if (!response.ok) throw new APIError(response.status, body);
  return body;
}

/** Every item of a paged list, following `next` (at most `maxPages`). */
async function pages(path, maxPages = 50) {
  let items = [];
  let next = path;
  for (let i = 0; next && i < maxPages; i++) {
    const page = await api(next);
    items = items.concat(page.items);
    next = page.next;
  }
  return items;
}

const iso = (ms) => new Date(ms).toISOString();
/** Operators and admins edit; viewers and drivers only read. */
const isOperator = () => state.role === 'operator' || state.role === 'admin';
/** A vehicle hidden by the group filter. */
const filtered = (v) => state.groupFilter !== '' && (v.group || '') !== state.groupFilter;
const local = (t) => new Date(t).toLocaleString();
const q = encodeURIComponent;

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function duration(seconds) {
  const t = Math.round(seconds);
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60;
  if (h) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

// ---- login ------------------------------------------------------------

function showLogin(message) {
  if (state.events) { state.events.close(); state.events = null; }
  $('app').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message || '';
  $('login-user').focus();
}

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  $('login-error').textContent = '';
  try {
    const who = await api('/api/v1/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: $('login-user').value, password: $('login-password').value }),
    });
    $('login-password').value = '';
    start(who);
  } catch (err) {
    $('login-error').textContent = err.message;
  }
});

$('logout').addEventListener('click', async () => {
  await api('/api/v1/session', { method: 'DELETE' }).catch(() => {});
  location.reload();
});

// ---- map ----------------------------------------------------------------

function makeMap() {
  const map = L.map('map', { preferCanvas: true, worldCopyJump: true, zoomControl: true });
  if (config.tile_url) {
    L.tileLayer(config.tile_url, { attribution: config.tile_attribution || '', maxZoom: 19 }).addTo(map);
  } else {
    map.attributionControl.setPrefix('no tiles: vectors only');
    addBasemap(map);
  }
  L.control.scale({ imperial: false }).addTo(map);
  map.setView([20, 0], 2);
  const graticule = L.layerGroup().addTo(map);
  const drawGraticule = () => {
    graticule.clearLayers();
    const b = map.getBounds();
    const span = Math.max(b.getEast() - b.getWest(), b.getNorth() - b.getSouth());
    const steps = [30, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];
    const step = steps.find((s) => span / s >= 3) || 0.001;
    const style = { color: '#b9b4a6', weight: 0.6, interactive: false };
    for (let lon = Math.ceil(b.getWest() / step) * step; lon <= b.getEast(); lon += step) {
      graticule.addLayer(L.polyline([[Math.max(b.getSouth(), -85), lon], [Math.min(b.getNorth(), 85), lon]], style));
    }
    for (let lat = Math.ceil(b.getSouth() / step) * step; lat <= b.getNorth(); lat += step) {
      graticule.addLayer(L.polyline([[lat, b.getWest()], [lat, b.getEast()]], style));
    }
  };
  map.on('moveend', drawGraticule);
  map.on('zoomend', updateCorridors);
  drawGraticule();
  return map;
}

/** Metres per screen pixel at `lat` for the map's zoom. */
function metresPerPixel(lat) {
  return (40075016.686 * Math.cos((lat * Math.PI) / 180)) / Math.pow(2, state.map.getZoom() + 8);
}

function updateCorridors() {
  for (const c of state.corridors) {
    const lat = c.getBounds().getCenter().lat;
    c.setStyle({ weight: Math.max(2, (2 * c.halfWidth) / metresPerPixel(lat)) });
  }
}

async function loadFences() {
  const doc = await api('/api/v1/fences');
  state.fencesDoc = doc;
  if (state.fencesLayer) state.fencesLayer.remove();
  state.corridors = [];
  state.fenceLabels = [];
  const style = { color: '#3b7dd8', weight: 1.5, fillColor: '#3b7dd8', fillOpacity: 0.12 };
  state.fencesLayer = L.geoJSON(doc, {
    style: (f) => (f.geometry.type === 'LineString'
      ? { color: '#3b7dd8', opacity: 0.25, weight: 4, lineCap: 'round', lineJoin: 'round' }
      : style),
    pointToLayer: (f, latlng) => L.circle(latlng, Object.assign({ radius: Number(f.properties.radius_m) || 0 }, style)),
    onEachFeature: (f, layer) => {
      const name = (f.properties && f.properties.name) || f.id || '';
      // Names are drawn on the vehicles' canvas, under the vehicles.
      // (A circle has no bounds before it is on the map: its centre.)
      const at = f.geometry.type === 'LineString' ? layer.getLatLngs()[0]
        : f.geometry.type === 'Point' ? layer.getLatLng() : layer.getBounds().getCenter();
      state.fenceLabels.push({ name: String(name), lat: at.lat, lon: at.lng });
      if (f.geometry.type === 'LineString') {
        layer.halfWidth = (Number(f.properties.width_m) || 0) / 2;
        state.corridors.push(layer);
      }
    },
  }).addTo(state.map);
  updateCorridors();
  renderFenceList();
  if (state.vehicleLayer) state.vehicleLayer.draw();
}

// ---- vehicles on one canvas ---------------------------------------------

const COLOURS = { moving: '#2e9e44', parked: '#3b7dd8', silent: '#8a8a8a' };

/** Moving: at 5 km/h or more, heard from in the last 5 minutes (by when its
 * position reached the page, or by its fix time for one loaded at start: a
 * device's clock may be off, a replay's times in the past). */
function vehicleState(v, now) {
  if (v.silent) return 'silent';
  return v.speed >= 5 && now - (v.seen || v.time) < 5 * 60 * 1000 ? 'moving' : 'parked';
}

const VehicleLayer = L.Layer.extend({
  onAdd(map) {
    this._canvas = L.DomUtil.create('canvas', 'leaflet-zoom-hide');
    map.getPanes().overlayPane.appendChild(this._canvas);
    map.on('moveend resize', this._reset, this);
    this._reset();
  },
  onRemove(map) {
    L.DomUtil.remove(this._canvas);
    map.off('moveend resize', this._reset, this);
  },
  _reset() {
    const size = this._map.getSize();
    const ratio = window.devicePixelRatio || 1;
    L.DomUtil.setPosition(this._canvas, this._map.containerPointToLayerPoint([0, 0]));
    this._canvas.width = size.x * ratio;
    this._canvas.height = size.y * ratio;
    this._canvas.style.width = size.x + 'px';
    this._canvas.style.height = size.y + 'px';
    this.draw();
  },
  /** Draws every vehicle in view (after applying the positions that came in). */
  draw() {
    const started = performance.now();
    const map = this._map;
    const ctx = this._canvas.getContext('2d');
    const ratio = window.devicePixelRatio || 1;
    const size = map.getSize();
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, size.x, size.y);
    const bounds = map.getBounds().pad(0.05);
    const now = Date.now();
    const hits = [];
    let inView = 0;
    for (const v of state.vehicles.values()) if (!filtered(v) && bounds.contains([v.lat, v.lon])) inView++;
    const labels = inView <= 300 || map.getZoom() >= 14;
    // Fence names where they can be read (zoomed in), under the vehicles.
    if (map.getZoom() >= 10) {
      ctx.font = '600 12px system-ui, sans-serif';
      ctx.textAlign = 'center';
      for (const f of state.fenceLabels) {
        if (!bounds.contains([f.lat, f.lon])) continue;
        const p = map.latLngToContainerPoint([f.lat, f.lon]);
        ctx.strokeStyle = 'rgba(255,255,255,0.9)';
        ctx.lineWidth = 3;
        ctx.strokeText(f.name, p.x, p.y);
        ctx.fillStyle = '#1f4f8f';
        ctx.fillText(f.name, p.x, p.y);
      }
      ctx.textAlign = 'start';
      ctx.lineWidth = 1;
    }
    ctx.font = '12px system-ui, sans-serif';
    ctx.lineWidth = 1;
    for (const v of state.vehicles.values()) {
      if (filtered(v) || !bounds.contains([v.lat, v.lon])) continue;
      const p = map.latLngToContainerPoint([v.lat, v.lon]);
      hits.push([p.x, p.y, v.device]);
      const colour = COLOURS[vehicleState(v, now)];
      ctx.fillStyle = colour;
      ctx.strokeStyle = '#ffffff';
      if (v.course == null || Number.isNaN(v.course)) {
        ctx.beginPath();
        ctx.arc(p.x, p.y, 5, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      } else {
        const a = (v.course * Math.PI) / 180;
        const s = Math.sin(a), c = Math.cos(a);
        // An arrow pointing along the course (0 = north, clockwise).
        const pt = (dx, dy) => [p.x + dx * c - dy * s, p.y + dx * s + dy * c];
        ctx.beginPath();
        ctx.moveTo(...pt(0, -9));
        ctx.lineTo(...pt(6, 6));
        ctx.lineTo(...pt(0, 3));
        ctx.lineTo(...pt(-6, 6));
        ctx.closePath();
        ctx.fill();
        ctx.stroke();
      }
      if (state.selected === v.device) {
        ctx.strokeStyle = '#d0352b';
        ctx.lineWidth = 2.5;
        ctx.beginPath();
        ctx.arc(p.x, p.y, 12, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.lineWidth = 1;
      }
      if (labels) {
        const text = v.name || v.device;
        ctx.strokeStyle = '#ffffff';
        ctx.lineWidth = 3;
        ctx.strokeText(text, p.x + 10, p.y + 4);
        ctx.fillStyle = '#222';
        ctx.fillText(text, p.x + 10, p.y + 4);
        ctx.lineWidth = 1;
      }
    }
    this._hits = hits;
    stats.drawn = hits.length;
    stats.lastDrawMs = performance.now() - started;
  },
  /** The vehicle drawn nearest to a container point, within 12 px. */
  hit(point) {
    let best = null, bestD = 144;
    for (const [x, y, device] of this._hits || []) {
      const d = (x - point.x) ** 2 + (y - point.y) ** 2;
      if (d < bestD) { bestD = d; best = device; }
    }
    return best;
  },
});

let frameRequested = false;
function requestFrame() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(() => {
    frameRequested = false;
    stats.frames++;
    const watched = [];
    for (const p of state.pending.values()) {
      applyPosition(p);
      if (stats.watch.has(p.device)) watched.push(p);
    }
    state.pending.clear();
    state.vehicleLayer.draw();
    const now = Date.now();
    for (const p of watched) stats.drawnAt[p.device] = { time: timeOf(p), at: now };
    updateCount();
  });
}

/** Metres between two points (haversine). */
function metres(lat1, lon1, lat2, lon2) {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(a));
}

/** Degrees clockwise from north, from one point to another. */
function bearing(lat1, lon1, lat2, lon2) {
  const r = Math.PI / 180;
  const y = Math.sin((lon2 - lon1) * r) * Math.cos(lat2 * r);
  const x = Math.cos(lat1 * r) * Math.sin(lat2 * r) - Math.sin(lat1 * r) * Math.cos(lat2 * r) * Math.cos((lon2 - lon1) * r);
  return ((Math.atan2(y, x) / r) + 360) % 360;
}

/** Speed and course as reported; else derived from the vehicle's previous
 * position (phones and some trackers send neither). */
function derive(v, p, time) {
  const moved = v.time && time > v.time ? metres(v.lat, v.lon, p.lat, p.lon) : 0;
  if (p.speed_kmh != null) v.speed = p.speed_kmh;
  else v.speed = moved ? (moved / (time - v.time)) * 3600 : v.speed || 0;
  if (p.course != null) v.course = p.course;
  else if (moved > 2) v.course = bearing(v.lat, v.lon, p.lat, p.lon);
}

/** A position's time, ms: compact rows carry it as a number, full records as text. */
function timeOf(p) {
  return typeof p.time === 'number' ? p.time : Date.parse(p.time);
}

function applyPosition(p) {
  const v = state.vehicles.get(p.device) || { device: p.device, name: null, silent: false };
  const time = timeOf(p);
  derive(v, p, time);
  v.lat = p.lat;
  v.lon = p.lon;
  v.time = time;
  v.seen = Date.now();
  v.silent = false;
  state.vehicles.set(p.device, v);
  if (state.selected === p.device && state.trail) {
    state.trail.addLatLng([p.lat, p.lon]);
    showDetails(p.device, false);
  }
}

async function loadVehicles() {
  const items = await pages('/api/v1/positions/latest?limit=10000', 100);
  for (const item of items) {
    const p = item.position;
    const known = state.vehicles.get(item.device);
    // A position the stream brought meanwhile is newer: keep it, take the name.
    if (known && known.time >= Date.parse(p.time)) { known.name = item.name; known.group = item.group; continue; }
    state.vehicles.set(item.device, {
      device: item.device, name: item.name, silent: item.silent, lat: p.lat, lon: p.lon,
      course: p.course, speed: p.speed_kmh == null ? 0 : p.speed_kmh, time: Date.parse(p.time),
      odometer: item.odometer_m, group: item.group,
    });
  }
  refreshGroups();
  const list = $('device-list');
  list.replaceChildren(...[...state.vehicles.values()].map((v) => el('option', { value: v.device, label: v.name || v.device })));
}

/** How many vehicles: all of them, or those the group filter shows of all. */
function updateCount() {
  const all = state.vehicles.size;
  const shown = state.groupFilter ? [...state.vehicles.values()].filter((v) => !filtered(v)).length : all;
  const noun = (n) => `${n} vehicle${n === 1 ? '' : 's'}`;
  $('vehicle-count').textContent = shown === all ? noun(all) : `${shown} of ${noun(all)}`;
}

/** The group filter's and the group field's choices: the groups the vehicles are in. */
function refreshGroups() {
  const groups = [...new Set([...state.vehicles.values()].map((v) => v.group).filter(Boolean))].sort();
  const select = $('group-filter');
  select.replaceChildren(el('option', { value: '', text: 'every group' }), ...groups.map((g) => el('option', { value: g, text: g })));
  if (!groups.includes(state.groupFilter)) state.groupFilter = '';
  select.value = state.groupFilter;
  // A choice only where there is one to make (two groups, or one and vehicles in none).
  select.hidden = groups.length === 0 || (groups.length === 1 && [...state.vehicles.values()].every((v) => v.group));
  $('group-list').replaceChildren(...groups.map((g) => el('option', { value: g })));
}

$('group-filter').addEventListener('change', () => {
  state.groupFilter = $('group-filter').value;
  state.vehicleLayer.draw();
  updateCount();
  renderAlerts();
});

function fitAll() {
  const points = [...state.vehicles.values()].filter((v) => !filtered(v)).map((v) => [v.lat, v.lon]);
  if (points.length) {
    state.map.fitBounds(L.latLngBounds(points).pad(0.15), { maxZoom: 15 });
  } else if (state.fencesLayer && state.fencesLayer.getLayers().length) {
    state.map.fitBounds(state.fencesLayer.getBounds().pad(0.1));
  }
}

// ---- vehicle details ----------------------------------------------------

async function select(device) {
  state.selected = device;
  state.vehicleLayer.draw();
  if (state.trail) { state.trail.remove(); state.trail = null; }
  if (!device) { $('details').hidden = true; return; }
  const hourAgo = iso(Date.now() - 3600 * 1000);
  const trail = await pages(`/api/v1/devices/${q(device)}/positions?from=${q(hourAgo)}&limit=10000`, 5).catch(() => []);
  if (state.selected !== device) return;
  const points = trail.filter((p) => p.flag === '-');
  state.trail = L.polyline(points.map((p) => [p.lat, p.lon]), {
    color: '#d0352b', weight: 3, opacity: 1, interactive: false,
  }).addTo(state.map);
  // Speed and course from the trail's last two positions when not reported.
  const v = state.vehicles.get(device);
  if (v && points.length >= 2 && (v.course == null || points[points.length - 1].speed_kmh == null)) {
    const a = points[points.length - 2], b = points[points.length - 1];
    if (Date.parse(b.time) === v.time) {
      const before = { lat: a.lat, lon: a.lon, time: Date.parse(a.time), course: v.course, speed: v.speed };
      derive(before, b, v.time);
      v.speed = before.speed;
      v.course = before.course;
      state.vehicleLayer.draw();
    }
  }
  await showDetails(device, true);
}

let detailsBusy = false;
async function showDetails(device, force) {
  if (detailsBusy && !force) return;
  detailsBusy = true;
  try {
    const [d, trips, commands] = await Promise.all([
      api(`/api/v1/devices/${q(device)}`),
      pages(`/api/v1/trips?device=${q(device)}&from=${q(iso(Date.now() - 86400 * 1000))}&limit=1000`, 5).catch(() => []),
      api(`/api/v1/devices/${q(device)}/commands?limit=5`).then((p) => p.items).catch(() => []),
    ]);
    if (state.selected !== device) return;
    const v = state.vehicles.get(device) || {};
    const p = d.last_position || {};
    const open = trips.find((t) => t.open);
    state.detail = d;
    if (state.vehicles.has(device)) state.vehicles.get(device).group = d.group;
    $('details-name').textContent = d.name ? `${d.name} (${device})` : device;
    const rows = [
      ['State', vehicleState(v, Date.now())],
      ['Speed', p.speed_kmh != null ? `${Math.round(p.speed_kmh)} km/h` : v.speed ? `${Math.round(v.speed)} km/h (derived)` : '–'],
      ['Last fix', d.last_fix ? local(d.last_fix) : '–'],
      ['Odometer', `${(d.odometer_m / 1000).toFixed(1)} km`],
      ['Ignition', d.ignition == null ? '–' : (d.ignition ? 'on' : 'off') + (d.idle_since ? `, idling since ${local(d.idle_since)}` : '')],
      ['Driver', d.driver || '–'],
      ['Fences', d.fences && d.fences.length ? d.fences.join(', ') : 'none'],
      ['Open trip', open ? `since ${local(open.start_time)}, ${(open.distance_m / 1000).toFixed(1)} km` : 'none'],
      ['Plate', d.plate || '–'],
      ['Group', d.group || 'none'],
    ];
    $('details-list').replaceChildren(...rows.flatMap(([k, val]) => [el('dt', { text: k }), el('dd', { text: val })]));
    $('group-form').hidden = !isOperator();
    if (document.activeElement !== $('group-name')) $('group-name').value = d.group || '';
    renderCommands(commands);
    await renderMaintenance(device);
    await renderShares(device);
    $('details').hidden = false;
  } catch (err) {
    $('details-name').textContent = device;
    $('details-list').replaceChildren(el('dd', { class: 'error', text: err.message }));
    $('details').hidden = false;
  } finally {
    detailsBusy = false;
  }
}

$('details-close').addEventListener('click', () => select(null));

// The selected vehicle's group (operators): its name, plate and VIN sent as they are.
$('group-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const device = state.selected, d = state.detail;
  if (!device || !d) return;
  const group = $('group-name').value.trim();
  try {
    await api(`/api/v1/devices/${q(device)}`, {
      method: 'PUT', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: d.name, plate: d.plate, vin: d.vin, group: group || null }),
    });
    $('group-name').blur();
    await showDetails(device, true);
    refreshGroups();
  } catch (err) {
    alert(`Cannot set the group: ${err.message}`);
  }
});

// ---- commands to the selected device --------------------------------------

/** The selected device's newest commands, and the form for operators. */
function renderCommands(commands) {
  $('commands-list').replaceChildren(...commands.map((c) =>
    el('li', {},
      el('div', {}, el('code', { text: c.text }), el('span', { class: `status s-${c.status}`, text: c.status }),
        el('span', { class: 'meta', text: ` · ${local(c.answered || c.sent || c.queued)} · ${c.by}` })),
      c.response ? el('div', { class: 'answer', text: c.response }) : '')));
  const operator = isOperator();
  $('command-form').hidden = !operator;
  $('details-commands').hidden = commands.length === 0 && !operator;
}

$('command-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const device = state.selected;
  const text = $('command-text').value.trim();
  if (!device || !text) return;
  try {
    await api(`/api/v1/devices/${q(device)}/commands`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text }),
    });
    $('command-text').value = '';
    await showDetails(device, true);
  } catch (err) {
    alert(`Cannot send: ${err.message}`);
  }
});

// ---- maintenance of the selected vehicle -----------------------------------

/** What is left (or overdue) under a plan, in words. */
function maintenanceLeft(p) {
  const parts = [];
  const say = (v, unit) => (v < 0 ? `${Math.round(-v * 10) / 10} ${unit} overdue` : `${Math.round(v * 10) / 10} ${unit} left`);
  if (p.km_left != null) parts.push(say(p.km_left, 'km'));
  if (p.engine_h_left != null) parts.push(say(p.engine_h_left, 'h'));
  if (p.days_left != null) parts.push(say(p.days_left, 'days'));
  return parts.join(', ');
}

/** The selected vehicle's plans (due first) and, for operators, a "Done" for each. */
async function renderMaintenance(device) {
  const m = await api(`/api/v1/devices/${q(device)}/maintenance`).catch(() => ({ plans: [] }));
  const plans = (m.plans || []).slice().sort((a, b) => (b.due ? 1 : 0) - (a.due ? 1 : 0));
  $('details-maintenance').hidden = plans.length === 0;
  const operator = isOperator();
  $('maintenance-list').replaceChildren(...plans.map((p) => {
    const row = el('li', {},
      el('span', { class: `status ${p.due ? 's-due' : 's-ok'}`, text: p.due ? 'due' : 'ok' }),
      el('span', { text: ` ${p.plan}: ${maintenanceLeft(p)}` }),
      el('span', { class: 'meta', text: ` · since ${local(p.last_done)} (${p.last_by})` }));
    if (operator) {
      const done = el('button', { class: 'link', text: 'Done', title: 'record this service as done now' });
      done.addEventListener('click', async () => {
        try {
          await api(`/api/v1/devices/${q(device)}/maintenance`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ plan: p.plan }),
          });
          await renderMaintenance(device);
        } catch (err) {
          alert(`Cannot record: ${err.message}`);
        }
      });
      row.append(' ', done);
    }
    return row;
  }));
}

// ---- links that share the selected vehicle ---------------------------------

/** The selected vehicle's links still working, and the form (operators only). */
async function renderShares(device) {
  const operator = isOperator();
  $('details-shares').hidden = !operator;
  if (!operator) return;
  const all = await api(`/api/v1/devices/${q(device)}/shares`).then((p) => p.items).catch(() => []);
  const now = Date.now();
  const working = all.filter((s) => !s.revoked && Date.parse(s.expires) > now);
  $('shares-list').replaceChildren(...working.map((s) => {
    const revoke = el('button', { class: 'link', text: 'Revoke', title: 'stop this link now' });
    revoke.addEventListener('click', async () => {
      try {
        await api(`/api/v1/devices/${q(device)}/shares/${s.id}`, { method: 'DELETE' });
        $('share-made').hidden = true;
        await renderShares(device);
      } catch (err) {
        alert(`Cannot revoke: ${err.message}`);
      }
    });
    return el('li', {}, el('span', { text: `link ${s.id} until ${local(s.expires)}` }), el('span', { class: 'meta', text: ` · ${s.created_by} ` }), revoke);
  }));
}

$('share-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const device = state.selected;
  if (!device) return;
  try {
    const made = await api(`/api/v1/devices/${q(device)}/shares`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ expires_in_s: Number($('share-for').value) }),
    });
    $('share-made').value = location.origin + made.url;
    $('share-made').hidden = false;
    $('share-made').select();
    await renderShares(device);
  } catch (err) {
    alert(`Cannot share: ${err.message}`);
  }
});

// ---- alerts -------------------------------------------------------------

const ALERT_TYPES = ['geofence_enter', 'geofence_exit', 'overspeed_start', 'overspeed_end', 'trip_start', 'trip_end', 'device_silent', 'device_back', 'ignition_on', 'ignition_off', 'idle_start', 'idle_end', 'device_alarm', 'maintenance_due'];

// The newest 1000 alerts of the last 24 hours, newest first (after a storm
// of millions, these are the storm's last).
async function loadAlerts() {
  const since = iso(Date.now() - 86400 * 1000);
  const page = await api(`/api/v1/alerts?order=newest&since=${q(since)}&limit=1000`);
  state.alerts = page.items;
  renderAlerts();
}

function alertMatches(a) {
  const type = $('alert-type').value, device = $('alert-device').value.trim(), fence = $('alert-fence').value.trim();
  // The header's group filter hides the other groups' alerts too.
  const vehicle = state.vehicles.get(a.device);
  if (state.groupFilter !== '' && (!vehicle || filtered(vehicle))) return false;
  return (!type || a.type === type) && (!device || a.device.includes(device)) && (!fence || (a.fence || '').includes(fence));
}

function alertItem(a, fresh) {
  const vehicle = state.vehicles.get(a.device);
  const who = vehicle && vehicle.name ? `${vehicle.name} (${a.device})` : a.device;
  const li = el('li', { class: fresh ? 'new' : '', 'data-id': String(a.id) },
    el('div', {}, el('span', { class: `type t-${a.type}`, text: a.type.replace('_', ' ') }), ' ', el('span', { text: who }), a.fence ? ` · ${a.fence}` : '', a.alarm ? ` · ${a.alarm}` : ''),
    el('div', { class: 'meta', text: local(a.time) + (a.speed_kmh ? ` · ${Math.round(a.speed_kmh)} km/h` : '') }));
  if (a.acked_by) {
    li.append(el('div', { class: 'acked', text: `acknowledged by ${a.acked_by}, ${local(a.acked_at)}` }));
  } else if (isOperator()) {
    li.append(el('button', { class: 'link ack', text: 'Acknowledge', onclick: () => acknowledge(a.id) }));
  }
  li.addEventListener('click', (e) => {
    if (e.target.tagName === 'BUTTON') return;
    if (a.lat != null) state.map.setView([a.lat, a.lon], Math.max(state.map.getZoom(), 14));
  });
  return li;
}

function renderAlerts() {
  const shown = state.alerts.filter(alertMatches).slice(0, 200);
  $('alerts').replaceChildren(...shown.map((a) => alertItem(a, false)));
}

async function acknowledge(id) {
  try {
    const a = await api(`/api/v1/alerts/${id}/ack`, { method: 'POST' });
    const i = state.alerts.findIndex((x) => x.id === id);
    if (i >= 0) state.alerts[i] = a;
    const item = document.querySelector(`#alerts li[data-id="${id}"]`);
    if (item) item.replaceWith(alertItem(a, false));
  } catch (err) {
    alert(`Cannot acknowledge: ${err.message}`);
  }
}

// Alerts as they come, oldest first: each kept once (newest first, 1000 at
// most), and the newest 200 that match added on top of the list in one go
// (the rest of the list stays as it is, buttons and all).
function onAlerts(list) {
  stats.alertEvents += list.length;
  // One alert: a scan; a batch: a set of the ids kept.
  const known = list.length < 8 ? null : new Set(state.alerts.map((x) => x.id));
  const fresh = list.filter((a) => !(known ? known.has(a.id) : state.alerts.some((x) => x.id === a.id)));
  if (fresh.length === 0) return;
  for (const a of fresh) {
    const v = state.vehicles.get(a.device);
    if (v && a.type === 'device_silent') { v.silent = true; requestFrame(); }
    if (v && a.type === 'device_back') { v.silent = false; requestFrame(); }
  }
  const newest = fresh.slice(-1000).reverse();
  state.alerts = newest.concat(state.alerts).slice(0, 1000);
  const shown = newest.filter(alertMatches).slice(0, 200);
  if (shown.length > 0) {
    const items = $('alerts');
    items.prepend(...shown.map((a) => alertItem(a, true)));
    while (items.children.length > 200) items.lastChild.remove();
  }
}

// In a storm the stream lists alarms and the newest alerts only and counts
// the rest (`skipped`): the panel says how many, and lists the newest
// stored ones again on request.
function noteSkipped(n) {
  stats.alertsSkipped += n;
  state.alertsSkipped += n;
  $('alerts-skipped-text').textContent = `${state.alertsSkipped.toLocaleString()} alerts of a storm not listed live (all are stored).`;
  $('alerts-skipped').hidden = false;
}

$('alerts-reload').addEventListener('click', () => {
  state.alertsSkipped = 0;
  $('alerts-skipped').hidden = true;
  loadAlerts().catch(() => {});
});

// An `alerts_compact` row as the alert's record: read by `fields`, its
// details' members beside the others, its time as text.
function alertOfRow(fields, row) {
  const a = {};
  fields.forEach((f, i) => { a[f] = row[i]; });
  const { time_ms: ms, details, ...rest } = a;
  return { ...(details || {}), ...rest, time: new Date(ms).toISOString() };
}

for (const t of ALERT_TYPES) $('alert-type').append(el('option', { value: t, text: t.replace('_', ' ') }));
for (const id of ['alert-type', 'alert-device', 'alert-fence']) {
  $(id).addEventListener('input', () => renderAlerts());
  $(id).addEventListener('change', () => renderAlerts());
}

// ---- the event stream ---------------------------------------------------

// Positions come batched and compact, one `positions_compact` event (rows
// named by its `fields`) a round of the hub; `?positions=batch` in the
// page's address takes them as full records in one event, `?positions=on`
// one event each.
const streamMode = { on: 'on', batch: 'batch' }[new URLSearchParams(location.search).get('positions')] || 'compact';
// Alerts come batched and compact too (`alerts_compact`), one event each
// with `?alerts=on` in the page's address.
const alertMode = new URLSearchParams(location.search).get('alerts') === 'on' ? 'on' : 'compact';

function connect() {
  const events = new EventSource(`/api/v1/events?positions=${streamMode}&alerts=${alertMode}`);
  state.events = events;
  events.addEventListener('open', () => { $('stream-state').textContent = 'live'; $('stream-state').className = 'stream-state live'; });
  events.addEventListener('error', () => {
    $('stream-state').textContent = 'reconnecting';
    $('stream-state').className = 'stream-state';
    if (events.readyState === EventSource.CLOSED) {
      // Closed for good (e.g. the session ended): check, then reconnect.
      api('/api/v1/session').then(() => setTimeout(connect, 2000)).catch(() => {});
    }
  });
  events.addEventListener('position', (e) => {
    stats.positionEvents++;
    const p = JSON.parse(e.data);
    state.pending.set(p.device, p);
    requestFrame();
  });
  events.addEventListener('positions', (e) => {
    const batch = JSON.parse(e.data);
    stats.positionEvents += batch.length;
    for (const p of batch) state.pending.set(p.device, p);
    requestFrame();
  });
  events.addEventListener('positions_compact', (e) => {
    const { fields, rows } = JSON.parse(e.data);
    const at = (name) => fields.indexOf(name);
    const [d, t, la, lo, s, c] = ['device', 'time_ms', 'lat', 'lon', 'speed_kmh', 'course'].map(at);
    stats.positionEvents += rows.length;
    for (const r of rows) {
      state.pending.set(r[d], { device: r[d], time: r[t], lat: r[la], lon: r[lo], speed_kmh: r[s], course: r[c] });
    }
    requestFrame();
  });
  events.addEventListener('alert', (e) => onAlerts([JSON.parse(e.data)]));
  events.addEventListener('alerts_compact', (e) => {
    const { fields, rows, skipped } = JSON.parse(e.data);
    if (skipped > 0) noteSkipped(skipped);
    onAlerts(rows.map((r) => alertOfRow(fields, r)));
  });
  events.addEventListener('command', (e) => {
    const c = JSON.parse(e.data);
    if (c.device === state.selected) showDetails(c.device, true);
  });
}

// ---- history and playback -----------------------------------------------

function inputValue(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 16);
}

function clearHistory() {
  const h = state.history;
  h.selectedTrip = null;
  for (const k of ['line', 'tripLine', 'marker']) if (h[k]) { h[k].remove(); h[k] = null; }
  stopPlayback();
}

$('history-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  clearHistory();
  const device = $('history-device').value.trim();
  const from = new Date($('history-from').value).getTime(), to = new Date($('history-to').value).getTime();
  if (!(to > from)) { $('history-status').textContent = 'To must be after From.'; return; }
  $('history-status').textContent = 'Loading…';
  try {
    const [positions, trips] = await Promise.all([
      pages(`/api/v1/devices/${q(device)}/positions?from=${q(iso(from))}&to=${q(iso(to))}&limit=100000`, 10),
      pages(`/api/v1/trips?device=${q(device)}&from=${q(iso(from))}&to=${q(iso(to))}&limit=1000`, 10),
    ]);
    const h = state.history;
    h.positions = positions.filter((p) => p.flag === '-').map((p) => ({ lat: p.lat, lon: p.lon, t: Date.parse(p.time) }));
    h.trips = trips;
    h.line = L.polyline(h.positions.map((p) => [p.lat, p.lon]), { color: '#7b3fb5', weight: 3, opacity: 0.8 }).addTo(state.map);
    if (h.positions.length) state.map.fitBounds(h.line.getBounds().pad(0.1));
    $('history-status').textContent = `${h.positions.length} positions, ${trips.length} trips.`;
    $('play').disabled = h.positions.length < 2;
    renderTrips();
  } catch (err) {
    $('history-status').textContent = err.message;
  }
});

/** A place with no fence, as coordinates (about 10 m). */
function place(lat, lon) {
  return `${lat.toFixed(4)}, ${lon.toFixed(4)}`;
}

function renderTrips() {
  const body = $('trips').querySelector('tbody');
  body.replaceChildren(...state.history.trips.map((t, i) => el('tr', { class: 'clickable', 'data-index': String(i), onclick: () => showTrip(i) },
    el('td', { text: local(t.start_time) }),
    el('td', { text: `${t.start_fence || place(t.start_lat, t.start_lon)} → ${t.open ? '(under way)' : t.end_fence || place(t.end_lat, t.end_lon)}` }),
    el('td', { class: 'num', text: (t.distance_m / 1000).toFixed(2) }),
    el('td', { text: duration(t.duration_s) }),
    el('td', { class: 'num', text: String(Math.round(t.max_speed_kmh)) }))));
}

function showTrip(i) {
  const h = state.history;
  const t = h.trips[i];
  const from = Date.parse(t.start_time), to = Date.parse(t.end_time);
  h.selectedTrip = i;
  for (const row of $('trips').querySelectorAll('tbody tr')) row.classList.toggle('selected', row.dataset.index === String(i));
  if (h.tripLine) h.tripLine.remove();
  const points = h.positions.filter((p) => p.t >= from && p.t <= to);
  if (h.line) h.line.setStyle({ opacity: 0.2 });
  h.tripLine = L.polyline(points.map((p) => [p.lat, p.lon]), { color: '#d0352b', weight: 4 }).addTo(state.map);
  if (points.length) state.map.fitBounds(h.tripLine.getBounds().pad(0.15));
}

function stopPlayback() {
  const h = state.history;
  if (h.timer) { cancelAnimationFrame(h.timer); h.timer = null; }
  $('play').textContent = 'Play';
}

$('play').addEventListener('click', () => {
  const h = state.history;
  if (h.timer) { stopPlayback(); return; }
  let points = h.positions;
  if (h.selectedTrip != null) {
    const t = h.trips[h.selectedTrip];
    const from = Date.parse(t.start_time), to = Date.parse(t.end_time);
    points = points.filter((p) => p.t >= from && p.t <= to);
  }
  if (points.length < 2) return;
  if (!h.marker) h.marker = L.circleMarker([points[0].lat, points[0].lon], { radius: 8, color: '#fff', weight: 2, fillColor: '#d0352b', fillOpacity: 1 }).addTo(state.map);
  const speed = Number($('play-speed').value);
  const startReal = performance.now(), startSim = points[0].t;
  let i = 0;
  $('play').textContent = 'Stop';
  const step = () => {
    const sim = startSim + (performance.now() - startReal) * speed;
    while (i < points.length - 2 && points[i + 1].t <= sim) i++;
    const a = points[i], b = points[i + 1];
    const f = b.t > a.t ? Math.min(1, Math.max(0, (sim - a.t) / (b.t - a.t))) : 1;
    h.marker.setLatLng([a.lat + (b.lat - a.lat) * f, a.lon + (b.lon - a.lon) * f]);
    $('play-time').textContent = local(Math.min(sim, points[points.length - 1].t));
    if (sim >= points[points.length - 1].t) { stopPlayback(); return; }
    h.timer = requestAnimationFrame(step);
  };
  h.timer = requestAnimationFrame(step);
});

// ---- reports ------------------------------------------------------------

function reportQuery() {
  const from = $('report-from').value, to = $('report-to').value;
  return `from=${q(from + 'T00:00:00Z')}&to=${q(to + 'T00:00:00Z')}`;
}

function updateCsvLink() {
  $('report-csv').href = `/api/v1/reports/${$('report-kind').value}?${reportQuery()}&format=csv`;
}

$('report-kind').addEventListener('change', updateCsvLink);
$('report-from').addEventListener('change', updateCsvLink);
$('report-to').addEventListener('change', updateCsvLink);

async function usageReport() {
  const r = await api(`/api/v1/reports/usage?${reportQuery()}`);
  const cells = (row, first) => [
    el('td', { text: first }),
    el('td', { class: 'num', text: (row.distance_m / 1000).toFixed(2) }),
    el('td', { text: duration(row.driving_s) }),
    el('td', { class: 'num', text: String(row.trips) }),
    el('td', { text: duration(row.parked_s) }),
    el('td', { class: 'num', text: String(Math.round(row.max_speed_kmh)) }),
    el('td', { text: `${row.overspeed_episodes} / ${duration(row.overspeed_s)}` }),
    el('td', { text: `${row.idle_episodes} / ${duration(row.idle_s)}` }),
    el('td', { text: row.fence_visits.map((v) => `${v.fence} ×${v.visits} (${duration(v.inside_s)})`).join(', ') }),
    el('td', { text: row.first_fix ? local(row.first_fix) : '–' }),
    el('td', { text: row.last_fix ? local(row.last_fix) : '–' }),
  ];
  $('report').querySelector('tbody').replaceChildren(...r.vehicles.map((v) => el('tr', {}, ...cells(v, v.name ? `${v.name} (${v.device})` : v.device))));
  $('report').querySelector('tfoot').replaceChildren(el('tr', {}, ...cells(r.totals, 'Fleet')));
  return `${r.vehicles.length} vehicles, ${local(r.from)} to ${local(r.to)}.`;
}

async function stopsReport() {
  const r = await api(`/api/v1/reports/stops?${reportQuery()}`);
  $('stops-report').querySelector('tbody').replaceChildren(...r.stops.map((s) => el('tr', {},
    el('td', { text: s.name ? `${s.name} (${s.device})` : s.device }),
    el('td', { text: local(s.start) }),
    el('td', { text: s.ongoing ? 'still there' : local(s.end) }),
    el('td', { text: duration(s.duration_s) }),
    el('td', { text: duration(s.idle_s) }),
    el('td', { class: 'num', text: `${s.lat.toFixed(5)}, ${s.lon.toFixed(5)}` }),
    el('td', { text: s.fence || '–' }))));
  const total = r.stops.reduce((a, s) => a + s.duration_s, 0);
  return `${r.stops.length} ${r.stops.length === 1 ? 'stop' : 'stops'} of ${duration(r.min_s)} or longer (${duration(total)} in all), ${local(r.from)} to ${local(r.to)}.`;
}

$('report-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  updateCsvLink();
  const stops = $('report-kind').value === 'stops';
  $('report-status').textContent = 'Running…';
  try {
    $('report-status').textContent = await (stops ? stopsReport() : usageReport());
    $('report').hidden = stops;
    $('stops-report').hidden = !stops;
    $('report-view').hidden = false;
  } catch (err) {
    $('report-status').textContent = err.message;
  }
});

// ---- fences -------------------------------------------------------------

function renderFenceList() {
  const features = (state.fencesDoc && state.fencesDoc.features) || [];
  $('fence-list').querySelector('tbody').replaceChildren(...features.map((f) => {
    const props = Object.assign({}, f.properties || {});
    const name = props.name || f.id || '';
    delete props.name;
    let kind = f.geometry ? f.geometry.type : '?';
    if (kind === 'Point') kind = 'circle';
    else if (kind === 'LineString') kind = 'corridor';
    else kind = kind.toLowerCase();
    return el('tr', { class: 'clickable', onclick: () => focusFence(f) },
      el('td', { text: String(name) }), el('td', { text: kind }),
      el('td', { text: Object.entries(props).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ') }));
  }));
}

function focusFence(f) {
  const layer = L.geoJSON(f);
  const b = layer.getBounds();
  if (b.isValid()) state.map.fitBounds(b.pad(f.geometry.type === 'Point' ? 50 : 0.3), { maxZoom: 16 });
}

$('fence-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const status = $('fence-status');
  status.replaceChildren();
  const file = $('fence-file').files[0];
  if (!file) return;
  try {
    await api('/api/v1/fences', { method: 'PUT', headers: { 'content-type': 'application/geo+json' }, body: await file.text() });
    await loadFences();
    status.replaceChildren(el('p', { class: 'ok', text: `Loaded ${file.name}: ${state.fencesDoc.features.length} fences.` }));
  } catch (err) {
    const problems = (err.body && err.body.problems) || [];
    status.replaceChildren(el('p', { class: 'error', text: `${file.name}: ${err.message}` }),
      el('ul', { class: 'error' }, ...problems.map((p) => el('li', { text: p }))));
  }
});

// ---- tabs and start-up --------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === name);
  for (const p of ['live', 'history', 'reports', 'fences', 'mail', 'people']) $(`panel-${p}`).hidden = p !== name;
  $('report-view').hidden = true;
  if (name !== 'history') clearHistory();
  if (name === 'reports' && ($('report').querySelector('tbody').children.length || $('stops-report').querySelector('tbody').children.length)) $('report-view').hidden = false;
  state.map.invalidateSize();
}

for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => showTab(b.dataset.tab));

async function start(who) {
  state.user = who.user;
  state.role = who.role;
  const sees = who.device ? ` · ${who.device}` : who.groups && who.groups.length ? ` · ${who.groups.join(', ')}` : '';
  $('who').textContent = `${who.user} (${who.role}${sees})`;
  // A driver sees its vehicle, its track and its trips: no alerts, reports or fences.
  const driver = who.role === 'driver';
  for (const t of ['reports', 'fences', 'mail']) document.querySelector(`.tab[data-tab="${t}"]`).hidden = driver;
  document.querySelector('.tab[data-tab="people"]').hidden = who.role !== 'admin';
  state.who = who;
  $('alerts-box').hidden = driver;
  $('login').hidden = true;
  $('app').hidden = false;
  $('fence-form').hidden = who.role !== 'admin';
  if (!state.map) {
    state.map = makeMap();
    state.vehicleLayer = new VehicleLayer().addTo(state.map);
    // Handles for scripting the page (the browser tests) and for debugging.
    window.fleetdMap = state.map;
    window.fleetdVehicles = state.vehicles;
    window.fleetdTrail = () => state.trail;
    state.map.on('click', (e) => {
      const device = state.vehicleLayer.hit(e.containerPoint);
      if (device) select(device);
    });
  }
  const now = Date.now();
  $('history-from').value = inputValue(now - 86400 * 1000);
  $('history-to').value = inputValue(now + 60 * 1000);
  const today = new Date(now).toISOString().slice(0, 10);
  $('report-from').value = today.slice(0, 8) + '01';
  $('report-to').value = new Date(now + 86400 * 1000).toISOString().slice(0, 10);
  updateCsvLink();
  // Subscribed first, so nothing committed while the lists load is missed.
  connect();
  await Promise.all([driver ? null : loadFences().catch((e) => console.error(e)), loadVehicles().catch((e) => console.error(e))]);
  if (!driver) await loadAlerts().catch((e) => console.error(e));
  fitAll();
  requestFrame();
  document.body.dataset.ready = 'true';
}

api('/api/v1/session').then(start).catch(() => showLogin());
