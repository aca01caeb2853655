// Draws every figure of a RackTwin report with plotly.js and checks what was drawn: the results
// of that check go into #render-check as JSON (read by the report tests and shown nowhere).
(function () {
  'use strict';
  var check = window.racktwinCheck;  // set up before the library ran (errors caught from the start)
  var data;
  try {
    data = JSON.parse(document.getElementById('report-data').textContent);
  } catch (e) {
    check.errors.push('report data: ' + e.message);
    data = {figures: []};
  }

  function finiteRange(values) {
    var lo = Infinity, hi = -Infinity, n = 0;
    if (!values) return {n: 0};
    for (var i = 0; i < values.length; ++i) {
      var v = values[i];
      if (typeof v === 'number' && isFinite(v)) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        ++n;
      }
    }
    return n ? {n: n, min: lo, max: hi} : {n: 0};
  }

  // Marks the library put into the figure's SVG or canvas: paths with a real outline, images
  // (heatmaps), sankey links and nodes, canvases with pixels.
  function drawnMarks(div) {
    var count = 0;
    var paths = div.querySelectorAll('.main-svg .plot path, .main-svg .sankey path,' +
                                     ' .main-svg .pielayer path');
    for (var i = 0; i < paths.length; ++i) {
      var d = paths[i].getAttribute('d');
      if (d && d.length > 8 && d !== 'M0,0Z') ++count;
    }
    count += div.querySelectorAll('.main-svg .plot image').length;
    return count;
  }

  function describe(figure) {
    var div = document.getElementById(figure.id);
    var traces = [];
    var full = div && div._fullData ? div._fullData : [];
    for (var i = 0; i < full.length; ++i) {
      var t = full[i];
      var entry = {name: t.name, type: t.type, meta: figure.data[i] ? figure.data[i].meta : null};
      if (t.type === 'sankey') {
        entry.points = t.link && t.link.value ? t.link.value.length : 0;
        entry.range = finiteRange(t.link ? t.link.value : null);
      } else {
        var ys = t.type === 'bar' && t.orientation === 'h' ? t.x : t.y;
        entry.points = ys ? ys.length : 0;
        entry.range = finiteRange(ys);
      }
      traces.push(entry);
    }
    // Scatter traces whose line the library drew (an outline of more than one point).
    var lines = 0;
    var groups = div ? div.querySelectorAll('.main-svg g.trace.scatter') : [];
    for (var g = 0; g < groups.length; ++g) {
      var line = groups[g].querySelector('path.js-line');
      var d = line ? line.getAttribute('d') : '';
      if (d && d.length > 8) ++lines;
    }
    return {id: figure.id, expected_traces: figure.data.length, traces: traces,
            drawn: div ? drawnMarks(div) : 0, scatter_lines_drawn: lines};
  }

  var config = {displaylogo: false, responsive: true,
                modeBarButtonsToRemove: ['sendDataToCloud', 'lasso2d', 'select2d']};
  var drawing = [];
  for (var i = 0; i < data.figures.length; ++i) {
    var figure = data.figures[i];
    try {
      drawing.push(Plotly.newPlot(figure.id, figure.data, figure.layout, config));
    } catch (e) {
      check.errors.push(figure.id + ': ' + e.message);
    }
  }
  // With #check in the address (the report tests), each figure is also rasterised by the library
  // and its pixels counted: the share that differs from the background.
  function inkOf(figure) {
    return Plotly.toImage(figure.id, {format: 'png', width: 800, height: 400}).then(function (url) {
      return new Promise(function (resolve) {
        var image = new Image();
        image.onload = function () {
          var canvas = document.createElement('canvas');
          canvas.width = image.width;
          canvas.height = image.height;
          var context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          var pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
          var ink = 0;
          for (var p = 0; p < pixels.length; p += 4)
            if (pixels[p] < 235 || pixels[p + 1] < 235 || pixels[p + 2] < 235) ++ink;
          resolve(ink / (pixels.length / 4));
        };
        image.onerror = function () { resolve(0); };
        image.src = url;
      });
    });
  }
  function finish() {
    check.plots = data.figures.map(describe);
    check.figures = data.figures.length;
    var ready = Promise.resolve();
    if (location.hash === '#check') {
      ready = Promise.all(data.figures.map(inkOf)).then(function (inks) {
        for (var k = 0; k < inks.length; ++k) check.plots[k].ink = inks[k];
      });
    }
    ready.then(function () {
      check.done = true;
      document.getElementById('render-check').textContent = JSON.stringify(check);
    }, function (e) {
      check.errors.push('rasterising: ' + (e && e.message ? e.message : String(e)));
      document.getElementById('render-check').textContent = JSON.stringify(check);
    });
  }
  Promise.all(drawing).then(finish, function (e) {
    check.errors.push('drawing: ' + (e && e.message ? e.message : String(e)));
    finish();
  });
})();
