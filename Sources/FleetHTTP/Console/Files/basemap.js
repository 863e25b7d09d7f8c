// The maps' background without a tile server, shared by the console and
// the shared-vehicle page (loaded before their scripts).
'use strict';

/**
 * Without a tile server: Natural Earth's 1:110m countries (public domain,
 * served by fleetd) as land over a sea-coloured sheet, at zoom 7 and below
 * only: closer in, its coastlines (kilometres off at that scale) would
 * mislead, and the plain sheet and its grid are shown instead.
 */
function addBasemap(map) {
  map.createPane('basemap').style.zIndex = 150;
  const layer = L.geoJSON(null, {
    pane: 'basemap', interactive: false, renderer: L.canvas({ pane: 'basemap' }),
    style: { color: '#c8c0ae', weight: 0.8, fillColor: '#efeadf', fillOpacity: 1 },
    attribution: 'Natural Earth',
  });
  const show = () => {
    const on = map.getZoom() <= 7;
    map.getContainer().classList.toggle('with-basemap', on);
    if (on && !map.hasLayer(layer)) layer.addTo(map);
    if (!on && map.hasLayer(layer)) map.removeLayer(layer);
  };
  fetch('/console/basemap.geojson').then((r) => r.json()).then((data) => {
    layer.addData(data);
    map.on('zoomend', show);
    show();
  }).catch(() => {});
}
