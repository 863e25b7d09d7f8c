// A shared vehicle: its position and its trail since the link was made,
// read from /share/TOKEN/track every 5 s, on a map. Nothing else is shown
// and nothing else can be asked for with the link.
'use strict';

const config = JSON.parse(document.getElementById('fleetd-config').textContent || '{}');
const token = location.pathname.split('/').filter(Boolean)[1] || '';
const map = L.map('map', { worldCopyJump: true });
if (config.tile_url) {
  L.tileLayer(config.tile_url, { attribution: config.tile_attribution || '', maxZoom: 19 }).addTo(map);
} else {
  addBasemap(map);
}
L.control.scale({ imperial: false }).addTo(map);
map.setView([0, 0], 2);
const trail = L.polyline([], { color: '#1f4e79', weight: 4, opacity: 0.8 }).addTo(map);
let marker = null;
let after = null;
let placed = false;

function local(iso) { return new Date(iso).toLocaleString(); }

function state(text, gone) {
  const s = document.getElementById('share-state');
  s.textContent = text;
  s.className = gone ? 'gone' : 'muted';
}

async function poll() {
  let r;
  try {
    r = await fetch(`/share/${encodeURIComponent(token)}/track${after ? `?after=${encodeURIComponent(after)}` : ''}`, { cache: 'no-store' });
  } catch (err) {
    state('Cannot reach the server; trying again…');
    setTimeout(poll, 5000);
    return;
  }
  if (r.status === 404) {
    state('This link has expired or was revoked.', true);
    return;
  }
  if (!r.ok) {
    state(`The server answered ${r.status}; trying again…`);
    setTimeout(poll, 5000);
    return;
  }
  const t = await r.json();
  document.getElementById('share-title').textContent = t.name || t.device;
  document.title = `${t.name || t.device}: live`;
  for (const p of t.positions) trail.addLatLng([p.lat, p.lon]);
  const last = t.positions[t.positions.length - 1];
  if (last) {
    after = last.time;
    if (!marker) {
      marker = L.circleMarker([last.lat, last.lon], { radius: 8, color: '#fff', weight: 2, fillColor: '#d9480f', fillOpacity: 1 }).addTo(map);
    } else {
      marker.setLatLng([last.lat, last.lon]);
    }
    marker.bindTooltip(`${local(last.time)}${last.speed_kmh != null ? `, ${Math.round(last.speed_kmh)} km/h` : ''}`);
    if (!placed) {
      const b = trail.getBounds();
      if (b.isValid() && !b.getNorthEast().equals(b.getSouthWest())) map.fitBounds(b.pad(0.2));
      else map.setView([last.lat, last.lon], 15);
      placed = true;
    }
  }
  state(`${after ? `Last seen ${local(after)}` : 'No position yet since the link was made'} · link works until ${local(t.expires)}`);
  setTimeout(poll, 5000);
}

poll();
