/* jmxr dashboard charts: small self-contained SVG line, bar and pie charts with hover
 * values and legend toggles, plus sortable tables. Reads window.JMXR_REPORT (report-data.js).
 * When every chart of the page is drawn, <body data-charts-drawn="N"> is set; script errors
 * are counted in <body data-script-errors="N">. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
  var SYNTHETIC = ["#9ACD32", "yellow", "orange", "#FF6347"];
  var report = window.JMXR_REPORT || { graphs: {}, summary: { ok: 0, ko: 0 }, seriesFilter: "" };
  var errors = 0;
  /* Script errors are counted on <body data-script-errors> so a headless check can see them. */
  window.addEventListener("error", function () {
    errors++;
    if (document.body) { document.body.setAttribute("data-script-errors", String(errors)); }
  });

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function text(parent, x, y, value, anchor, extra) {
    var t = el("text", Object.assign({ x: x, y: y, "font-size": 11, fill: "#444", "text-anchor": anchor || "middle" }, extra || {}), parent);
    t.textContent = value;
    return t;
  }

  function niceStep(range, count) {
    var raw = range / Math.max(count, 1);
    var mag = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    var norm = raw / mag;
    return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  }

  function fmt(v) {
    if (Math.abs(v) >= 1e6) { return (v / 1e6).toFixed(1) + "M"; }
    if (Math.abs(v) >= 1e3) { return (v / 1e3).toFixed(1) + "k"; }
    return Math.round(v * 100) / 100 + "";
  }

  function fmtX(graph, x) {
    if (graph.xAxis === "time") {
      var d = new Date(x);
      return d.toLocaleDateString() + " " + d.toLocaleTimeString();
    }
    return fmt(x);
  }

  function filtered(series) {
    if (!report.seriesFilter) { return series; }
    var re;
    try { re = new RegExp(report.seriesFilter, "i"); } catch (e) { return series; }
    return series.filter(function (s) { return re.test(s.label); });
  }

  function legend(container, series, colors, onToggle) {
    var box = document.createElement("div");
    box.className = "legend";
    series.forEach(function (s, i) {
      var item = document.createElement("span");
      var swatch = document.createElement("i");
      swatch.style.background = colors[i];
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(s.label));
      item.addEventListener("click", function () {
        s.hidden = !s.hidden;
        item.className = s.hidden ? "off" : "";
        onToggle();
      });
      box.appendChild(item);
    });
    container.appendChild(box);
  }

  function drawXY(container, graph) {
    var series = filtered(graph.series).filter(function (s) { return s.data.length > 0; });
    if (series.length === 0) {
      container.innerHTML = "<div class=\"empty\">No data</div>";
      return;
    }
    var bars = graph.xAxis === "category" || graph.granularity && graph.xAxis === "number";
    var colors = series.map(function (s, i) {
      return graph.xAxis === "category" ? SYNTHETIC[i % 4] : COLORS[i % COLORS.length];
    });
    var holder = document.createElement("div");
    holder.className = "plot";
    container.appendChild(holder);
    var tip = document.createElement("div");
    tip.className = "tip";
    container.appendChild(tip);
    function render() {
      holder.innerHTML = "";
      var w = holder.clientWidth || 800, h = holder.clientHeight || 320;
      var m = { l: 60, r: 16, t: 10, b: 40 };
      var svg = el("svg", { viewBox: "0 0 " + w + " " + h, preserveAspectRatio: "none" }, holder);
      var shown = series.filter(function (s) { return !s.hidden; });
      var xs = [], ys = [0];
      shown.forEach(function (s) { s.data.forEach(function (p) { xs.push(p[0]); if (p[1] !== null) { ys.push(p[1]); } }); });
      if (xs.length === 0) { xs = [0, 1]; }
      var minX = Math.min.apply(null, xs), maxX = Math.max.apply(null, xs);
      if (bars) { maxX += graph.xAxis === "category" ? 1 : (graph.granularity || 1); }
      if (maxX === minX) { maxX = minX + 1; }
      var maxY = Math.max.apply(null, ys) || 1;
      var stepY = niceStep(maxY, 5);
      maxY = Math.ceil(maxY / stepY) * stepY;
      var px = function (x) { return m.l + (x - minX) / (maxX - minX) * (w - m.l - m.r); };
      var py = function (y) { return h - m.b - y / maxY * (h - m.t - m.b); };
      for (var y = 0; y <= maxY + 1e-9; y += stepY) {
        el("line", { x1: m.l, x2: w - m.r, y1: py(y), y2: py(y), stroke: "#e5e8ec" }, svg);
        text(svg, m.l - 6, py(y) + 4, fmt(y), "end");
      }
      if (graph.xAxis !== "category") {
        var ticks = 6;
        for (var i = 0; i <= ticks; i++) {
          var x = minX + (maxX - minX) * i / ticks;
          var label = graph.xAxis === "time" ? new Date(x).toLocaleTimeString() : fmt(x);
          text(svg, px(x), h - m.b + 16, label);
        }
      }
      text(svg, (m.l + w - m.r) / 2, h - 4, graph.xLabel);
      text(svg, 12, (h - m.b) / 2, graph.yLabel, "middle", { transform: "rotate(-90 12 " + (h - m.b) / 2 + ")" });
      el("line", { x1: m.l, x2: w - m.r, y1: py(0), y2: py(0), stroke: "#999" }, svg);
      series.forEach(function (s, si) {
        if (s.hidden) { return; }
        if (bars) {
          var width = graph.xAxis === "category" ? 1 : (graph.granularity || 1);
          var category = graph.xAxis === "category";
          var n = category ? 1 : Math.max(shown.length, 1), k = category ? 0 : shown.indexOf(s);
          s.data.forEach(function (p) {
            var x0 = px(p[0] + width * (0.1 + 0.8 * k / n)), x1 = px(p[0] + width * (0.1 + 0.8 * (k + 1) / n));
            el("rect", { x: x0, y: py(p[1]), width: Math.max(x1 - x0, 1), height: Math.max(py(0) - py(p[1]), 0), fill: colors[si] }, svg);
            if (graph.xAxis === "category") { text(svg, (x0 + x1) / 2, h - m.b + 16, fmt(p[1])); }
          });
        } else {
          var d = s.data.filter(function (p) { return p[1] !== null; }).map(function (p, j) {
            return (j ? "L" : "M") + px(p[0]).toFixed(1) + "," + py(p[1]).toFixed(1);
          }).join("");
          el("path", { d: d, fill: "none", stroke: colors[si], "stroke-width": 1.8 }, svg);
          if (s.data.length < 60) {
            s.data.forEach(function (p) { if (p[1] !== null) { el("circle", { cx: px(p[0]), cy: py(p[1]), r: 2.5, fill: colors[si] }, svg); } });
          }
        }
      });
      var cursor = el("line", { y1: m.t, y2: h - m.b, stroke: "#888", "stroke-dasharray": "3,3", visibility: "hidden" }, svg);
      svg.addEventListener("mousemove", function (ev) {
        var rect = svg.getBoundingClientRect();
        var x = minX + ((ev.clientX - rect.left) * w / rect.width - m.l) / (w - m.l - m.r) * (maxX - minX);
        var best = null;
        shown.forEach(function (s) { s.data.forEach(function (p) { if (best === null || Math.abs(p[0] - x) < Math.abs(best - x)) { best = p[0]; } }); });
        if (best === null) { return; }
        var lines = [fmtX(graph, best)];
        shown.forEach(function (s) { s.data.forEach(function (p) { if (p[0] === best && p[1] !== null) { lines.push((graph.contentMessage || s.label + ": ") + fmt(p[1])); } }); });
        tip.textContent = lines.join("\n");
        tip.style.display = "block";
        tip.style.left = Math.min(ev.clientX - container.getBoundingClientRect().left + 12, container.clientWidth - 180) + "px";
        tip.style.top = (ev.clientY - container.getBoundingClientRect().top + 12) + "px";
        cursor.setAttribute("x1", px(best)); cursor.setAttribute("x2", px(best)); cursor.setAttribute("visibility", "visible");
      });
      svg.addEventListener("mouseleave", function () { tip.style.display = "none"; cursor.setAttribute("visibility", "hidden"); });
    }
    render();
    legend(container, series, colors, render);
    window.addEventListener("resize", render);
  }

  function drawPie(container) {
    var ok = report.summary.ok, ko = report.summary.ko, total = ok + ko;
    var svg = el("svg", { viewBox: "0 0 400 240" }, container);
    var parts = [["PASS", ok, "#9ACD32"], ["FAIL", ko, "#FF6347"]];
    var angle = -Math.PI / 2, cx = 120, cy = 120, r = 100;
    parts.forEach(function (p, i) {
      var share = total ? p[1] / total : 0;
      var pct = (share * 100).toFixed(2) + "%";
      if (share >= 0.999999) {
        el("circle", { cx: cx, cy: cy, r: r, fill: p[2] }, svg).appendChild(document.createElementNS(NS, "title")).textContent = p[0] + " " + pct;
      } else if (share > 0) {
        var end = angle + share * 2 * Math.PI;
        var large = share > 0.5 ? 1 : 0;
        var d = "M" + cx + "," + cy + "L" + (cx + r * Math.cos(angle)) + "," + (cy + r * Math.sin(angle)) +
          "A" + r + "," + r + " 0 " + large + " 1 " + (cx + r * Math.cos(end)) + "," + (cy + r * Math.sin(end)) + "Z";
        el("path", { d: d, fill: p[2] }, svg).appendChild(document.createElementNS(NS, "title")).textContent = p[0] + " " + pct;
        angle = end;
      }
      el("rect", { x: 260, y: 90 + i * 24, width: 12, height: 12, fill: p[2] }, svg);
      text(svg, 280, 100 + i * 24, p[0] + " " + pct + " (" + p[1] + ")", "start", { "font-size": 13 });
    });
  }

  function sortable(table) {
    var head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    if (!head) { return; }
    Array.prototype.forEach.call(head.cells, function (th, col) {
      var asc = true;
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var fixed = rows.filter(function (r) { return r.className.indexOf("total") >= 0; });
        var rest = rows.filter(function (r) { return r.className.indexOf("total") < 0; });
        rest.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny;
          return asc ? c : -c;
        });
        asc = !asc;
        fixed.concat(rest).forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  function start() {
    var drawn = 0;
    var charts = document.querySelectorAll("[data-graph]");
    Array.prototype.forEach.call(charts, function (c) {
      var graph = report.graphs[c.getAttribute("data-graph")];
      if (graph) {
        drawXY(c, JSON.parse(JSON.stringify(graph)));
        c.setAttribute("data-drawn", "true");
        drawn++;
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-pie]"), function (c) {
      drawPie(c);
      c.setAttribute("data-drawn", "true");
      drawn++;
    });
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
    document.body.setAttribute("data-charts-drawn", String(drawn));
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
